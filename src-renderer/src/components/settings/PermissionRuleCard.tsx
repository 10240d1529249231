import { type FormEvent, useId, useState } from 'react'
import type { AtelierApi } from '../../../../src-shared/api'
import { type PermissionRule, parseRule, type RuleAction } from '../../../../src-shared/approvals'
import { isAtelierErrorPayload } from '../../../../src-shared/errors'
import { errorMessage } from '../../errors'
import { ACTION_LABELS, RULE_HINT, SOURCE_LABELS, scopeText } from '../approval-words'
import { PencilIcon } from '../icons'
import { fieldErrors } from './field-errors'
import { Notice } from './Notice'
import { RuleActionField } from './PermissionRuleForm'
import { TextField } from './TextField'

const DATE = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' })

interface PermissionRuleCardProps {
  api: AtelierApi
  rule: PermissionRule
  /** The title of a `chat` rule's chat, when it still exists. */
  chatTitle: string | undefined
  onSaved(rule: PermissionRule): void
  onRevoke(): void
}

/** One saved rule: what it says, where it holds, where it came from and when it last decided a call. */
export function PermissionRuleCard({ api, rule, chatTitle, onSaved, onRevoke }: PermissionRuleCardProps) {
  const id = useId()
  const [editing, setEditing] = useState(false)

  return (
    <li className="item-card rule-card" aria-labelledby={`${id}-rule`}>
      <div className="item-card-head">
        <div className="item-card-title">
          <h4 id={`${id}-rule`} className="rule-text">
            <code>{rule.rule}</code>
          </h4>
          <span className={`tag rule-action rule-action--${rule.action}`}>{ACTION_LABELS[rule.action]}</span>
        </div>
        <div className="item-card-actions">
          {!editing && (
            <button
              type="button"
              className="icon"
              aria-label={`Edit rule ${rule.rule}`}
              title="Edit"
              onClick={() => setEditing(true)}
            >
              <PencilIcon />
            </button>
          )}
          <button type="button" className="small" aria-label={`Revoke ${rule.rule}`} onClick={onRevoke}>
            Revoke
          </button>
        </div>
      </div>
      <dl className="facts">
        <div>
          <dt>Where</dt>
          <dd>{scopeText(rule, chatTitle)}</dd>
        </div>
        <div>
          <dt>Source</dt>
          <dd>{SOURCE_LABELS[rule.source]}</dd>
        </div>
        <div>
          <dt>Created</dt>
          <dd>{DATE.format(rule.createdAt)}</dd>
        </div>
        <div>
          <dt>Last used</dt>
          <dd>{rule.lastUsedAt === null ? 'Never used' : DATE.format(rule.lastUsedAt)}</dd>
        </div>
      </dl>
      {editing && (
        <RuleEditor
          api={api}
          rule={rule}
          onCancel={() => setEditing(false)}
          onDone={(saved) => {
            onSaved(saved)
            setEditing(false)
          }}
        />
      )}
    </li>
  )
}

function RuleEditor({
  api,
  rule,
  onDone,
  onCancel,
}: {
  api: AtelierApi
  rule: PermissionRule
  onDone(rule: PermissionRule): void
  onCancel(): void
}) {
  const id = useId()
  const [text, setText] = useState(rule.rule)
  const [action, setAction] = useState<RuleAction>(rule.action)
  const [errors, setErrors] = useState<{ rule?: string }>({})
  const [formError, setFormError] = useState<string>()
  const [saving, setSaving] = useState(false)

  async function submit(event: FormEvent) {
    event.preventDefault()
    setFormError(undefined)
    if (!parseRule(text)) {
      setErrors({ rule: `Not a rule. ${RULE_HINT}` })
      return
    }
    setErrors({})
    setSaving(true)
    try {
      onDone(await api.permissions.update({ id: rule.id, rule: text, action }))
    } catch (failure) {
      if (isAtelierErrorPayload(failure) && failure.code === 'invalid_rule')
        setErrors({ rule: failure.message })
      else setFormError(errorMessage(failure))
    } finally {
      setSaving(false)
    }
  }

  const fields = fieldErrors<'rule'>(id, errors)
  return (
    <form className="rule-editor" aria-label={`Edit rule ${rule.rule}`} noValidate onSubmit={submit}>
      <TextField
        fields={fields}
        field="rule"
        label="Rule"
        value={text}
        onChange={setText}
        spellCheck={false}
        className="mono"
        autoFocus
        hint={RULE_HINT}
      />
      <RuleActionField id={`${id}-action`} value={action} onChange={setAction} />
      {formError && (
        <Notice tone="danger" role="alert">
          {formError}
        </Notice>
      )}
      <div className="form-actions">
        <button type="submit" className="primary" disabled={saving} aria-busy={saving || undefined}>
          Save rule
        </button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  )
}
