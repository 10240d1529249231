import { type FormEvent, useEffect, useId, useRef, useState } from 'react'
import { type ApprovalRequest, parseRule } from '../../../../src-shared/approvals'

type SavedScope = 'project' | 'global'

interface AlwaysAllowEditorProps {
  request: ApprovalRequest
  disabled: boolean
  onSave(rules: string[], scope: SavedScope): void
  onCancel(): void
}

/**
 * "Always allow…": the exact rules that would be saved, one field each, and where they hold. What
 * is sent is what the fields show, never a broader rule chosen behind the person's back.
 */
export function AlwaysAllowEditor({ request, disabled, onSave, onCancel }: AlwaysAllowEditorProps) {
  const id = useId()
  const [rules, setRules] = useState(request.suggestedRules)
  const [scope, setScope] = useState<SavedScope>(request.folder ? 'project' : 'global')
  const [invalid, setInvalid] = useState<ReadonlySet<number>>(new Set())
  const first = useRef<HTMLInputElement>(null)

  useEffect(() => first.current?.focus(), [])

  function submit(event: FormEvent) {
    event.preventDefault()
    const bad = new Set(rules.flatMap((rule, index) => (parseRule(rule) ? [] : [index])))
    setInvalid(bad)
    if (bad.size === 0) onSave(rules, scope)
  }

  const label = (index: number) => (rules.length === 1 ? 'Rule to save' : `Rule ${index + 1} to save`)

  return (
    <form className="approval-always" aria-labelledby={`${id}-title`} noValidate onSubmit={submit}>
      <h4 id={`${id}-title`} className="approval-label">
        Always allow
      </h4>
      <p className="approval-hint" id={`${id}-hint`}>
        {rules.length === 1
          ? 'This rule is saved; later calls it matches run without asking.'
          : 'One rule per command; each is saved, and later calls they match run without asking.'}{' '}
        Written <code className="approval-code">tool(pattern)</code>; <code className="approval-code">*</code>{' '}
        matches anything, <code className="approval-code">/</code> included.
      </p>
      {rules.map((rule, index) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: one field per suggested rule, in their order
        <div key={index} className="approval-rule">
          <label htmlFor={`${id}-rule-${index}`}>{label(index)}</label>
          <input
            ref={index === 0 ? first : undefined}
            id={`${id}-rule-${index}`}
            type="text"
            value={rule}
            spellCheck={false}
            disabled={disabled}
            aria-invalid={invalid.has(index) || undefined}
            aria-describedby={invalid.has(index) ? `${id}-rule-${index}-error` : `${id}-hint`}
            onChange={(event) => {
              const value = event.target.value
              setRules((current) => current.map((r, i) => (i === index ? value : r)))
            }}
          />
          {invalid.has(index) && (
            <p className="field-error" id={`${id}-rule-${index}-error`} role="alert">
              Not a rule: write a tool name, optionally with a pattern in parentheses.
            </p>
          )}
        </div>
      ))}
      <fieldset className="approval-scope">
        <legend className="approval-label">Where it holds</legend>
        <label className="approval-choice">
          <input
            type="radio"
            name={`${id}-scope`}
            checked={scope === 'project'}
            disabled={disabled || !request.folder}
            aria-describedby={`${id}-folder`}
            onChange={() => setScope('project')}
          />
          This project folder
        </label>
        <p className="approval-hint" id={`${id}-folder`}>
          {request.folder ? (
            <code className="approval-code">{request.folder}</code>
          ) : (
            'This chat has no project folder.'
          )}
        </p>
        <label className="approval-choice">
          <input
            type="radio"
            name={`${id}-scope`}
            checked={scope === 'global'}
            disabled={disabled}
            onChange={() => setScope('global')}
          />
          Everywhere
        </label>
      </fieldset>
      <div className="approval-allow">
        <button type="submit" className="approval-primary" disabled={disabled}>
          Save and allow
        </button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  )
}
