import { type FormEvent, useId, useState } from 'react'
import type { AtelierApi } from '../../../../src-shared/api'
import {
  type PermissionRule,
  parseRule,
  RULE_ACTIONS,
  type RuleAction,
} from '../../../../src-shared/approvals'
import { isAtelierErrorPayload } from '../../../../src-shared/errors'
import { ACTION_LABELS, RULE_HINT } from '../approval-words'
import { FolderField } from './FolderField'
import { FormFooter } from './FormFooter'
import { fieldErrors } from './field-errors'
import { splitRequestError } from './request-errors'
import { TextField } from './TextField'

type Field = 'rule' | 'folder'

/** Adds a rule that holds everywhere or in one project folder (chat rules come from approval cards). */
export function PermissionRuleForm({
  api,
  onDone,
  onCancel,
}: {
  api: AtelierApi
  onDone(rule: PermissionRule): void
  onCancel(): void
}) {
  const id = useId()
  const [rule, setRule] = useState('')
  const [action, setAction] = useState<RuleAction>('allow')
  const [scope, setScope] = useState<'global' | 'project'>('global')
  const [folder, setFolder] = useState('')
  const [errors, setErrors] = useState<Partial<Record<Field, string>>>({})
  const [formError, setFormError] = useState<string>()
  const [saving, setSaving] = useState(false)

  async function submit(event: FormEvent) {
    event.preventDefault()
    setFormError(undefined)
    const found: Partial<Record<Field, string>> = {}
    if (!parseRule(rule)) found.rule = rule.trim() ? `Not a rule. ${RULE_HINT}` : 'Write the rule.'
    if (scope === 'project' && !folder.trim()) found.folder = 'Choose the project folder it holds in.'
    setErrors(found)
    if (Object.keys(found).length > 0) return
    setSaving(true)
    try {
      onDone(
        await api.permissions.add({
          rule,
          action,
          scope,
          ...(scope === 'project' && { folder: folder.trim() }),
        }),
      )
    } catch (failure) {
      if (isAtelierErrorPayload(failure) && failure.code === 'invalid_rule') {
        setErrors({ rule: failure.message })
      } else {
        const split = splitRequestError(failure, ['rule', 'folder'], (_, message) => message)
        setErrors(split.fields)
        setFormError(split.form)
      }
    } finally {
      setSaving(false)
    }
  }

  const fields = fieldErrors<Field>(id, errors)
  return (
    <form className="editor" aria-labelledby={`${id}-title`} noValidate onSubmit={submit}>
      <h3 id={`${id}-title`}>New rule</h3>
      <TextField
        fields={fields}
        field="rule"
        label="Rule"
        value={rule}
        onChange={setRule}
        spellCheck={false}
        className="mono"
        placeholder="bash(git status*)"
        autoFocus
        hint={RULE_HINT}
      />
      <RuleActionField id={`${id}-action`} value={action} onChange={setAction} />
      <fieldset className="field">
        <legend className="field-label">Where it holds</legend>
        <div className="choice-list">
          <label className="choice">
            <input
              type="radio"
              name={`${id}-scope`}
              checked={scope === 'global'}
              onChange={() => setScope('global')}
            />
            Everywhere
          </label>
          <label className="choice">
            <input
              type="radio"
              name={`${id}-scope`}
              checked={scope === 'project'}
              onChange={() => setScope('project')}
            />
            One project folder
          </label>
        </div>
      </fieldset>
      {scope === 'project' && (
        <div>
          <FolderField
            api={api}
            label="Project folder"
            value={folder}
            onChange={setFolder}
            hint="The rule holds in chats bound to this folder."
          />
          {fields.errorOf('folder')}
        </div>
      )}
      <FormFooter error={formError} saving={saving} submitLabel="Add rule" onCancel={onCancel} />
    </form>
  )
}

/** The action of a rule, with what each does. */
export function RuleActionField({
  id,
  value,
  onChange,
}: {
  id: string
  value: RuleAction
  onChange(action: RuleAction): void
}) {
  return (
    <div className="field">
      <label className="field-label" htmlFor={id}>
        Action
      </label>
      <select id={id} value={value} onChange={(event) => onChange(event.target.value as RuleAction)}>
        {RULE_ACTIONS.map((action) => (
          <option key={action} value={action}>
            {ACTION_LABELS[action]}
          </option>
        ))}
      </select>
      <p className="field-hint">
        Allow runs a matching call without asking, Ask always asks (even in Full auto), Deny refuses it.
      </p>
    </div>
  )
}
