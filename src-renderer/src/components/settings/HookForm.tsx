import { type FormEvent, useId, useState } from 'react'
import type { AtelierApi } from '../../../../src-shared/api'
import { isAtelierErrorPayload } from '../../../../src-shared/errors'
import {
  DEFAULT_HOOK_TIMEOUT_SECONDS,
  HOOK_EVENTS,
  type HookEntry,
  type HookEvent,
  type HookScope,
  MATCHED_ON,
} from '../../../../src-shared/hooks'
import { FormFooter } from './FormFooter'
import { fieldErrors } from './field-errors'
import { splitRequestError } from './request-errors'
import { TextField } from './TextField'

type Field = 'command' | 'matcher' | 'timeout'

/** Adds a hook, or edits one (`editing`): its event, matcher, command line and timeout. */
export function HookForm({
  api,
  folder,
  editing,
  onDone,
  onCancel,
}: {
  api: AtelierApi
  /** The current chat's project folder: a hook may go in its `.atelier/hooks.json`. */
  folder: string | null
  editing?: HookEntry
  onDone(entry: HookEntry): void
  onCancel(): void
}) {
  const id = useId()
  const [scope, setScope] = useState<HookScope>(editing?.scope ?? 'user')
  const [event, setEvent] = useState<HookEvent>(editing?.event ?? 'PreToolUse')
  const [matcher, setMatcher] = useState(editing?.matcher ?? '')
  const [command, setCommand] = useState(editing?.command ?? '')
  const [timeout, setTimeoutText] = useState(String(editing?.timeoutSeconds ?? DEFAULT_HOOK_TIMEOUT_SECONDS))
  const [errors, setErrors] = useState<Partial<Record<Field, string>>>({})
  const [formError, setFormError] = useState<string>()
  const [saving, setSaving] = useState(false)

  async function submit(submitted: FormEvent) {
    submitted.preventDefault()
    setFormError(undefined)
    const seconds = Number(timeout)
    const found: Partial<Record<Field, string>> = {}
    if (!command.trim()) found.command = 'Write the command to run.'
    if (!Number.isFinite(seconds) || seconds <= 0 || seconds > 3600) {
      found.timeout = 'A number of seconds, up to 3600.'
    }
    setErrors(found)
    if (Object.keys(found).length > 0) return
    setSaving(true)
    const place = { scope, ...(scope === 'project' && folder && { folder }) }
    try {
      const fields = { matcher: matcher.trim(), command: command.trim(), timeout: seconds }
      onDone(
        editing
          ? await api.hooks.update({ ...place, id: editing.id, ...fields })
          : await api.hooks.add({ ...place, event, ...fields }),
      )
    } catch (failure) {
      if (isAtelierErrorPayload(failure) && failure.code === 'invalid_hook') {
        setErrors({ matcher: failure.message })
      } else {
        const split = splitRequestError(failure, ['command', 'matcher', 'timeout'], (_, message) => message)
        setErrors(split.fields)
        setFormError(split.form)
      }
    } finally {
      setSaving(false)
    }
  }

  const fields = fieldErrors<Field>(id, errors)
  const matchedOn = MATCHED_ON[event]
  return (
    <form className="editor" aria-labelledby={`${id}-title`} noValidate onSubmit={submit}>
      <h3 id={`${id}-title`}>{editing ? 'Edit hook' : 'New hook'}</h3>
      {!editing && (
        <>
          <div className="field">
            <label className="field-label" htmlFor={`${id}-event`}>
              Event
            </label>
            <select id={`${id}-event`} value={event} onChange={(e) => setEvent(e.target.value as HookEvent)}>
              {HOOK_EVENTS.map((each) => (
                <option key={each} value={each}>
                  {each}
                </option>
              ))}
            </select>
          </div>
          <fieldset className="field">
            <legend className="field-label">Kept in</legend>
            <div className="choice-list">
              <label className="choice">
                <input
                  type="radio"
                  name={`${id}-scope`}
                  checked={scope === 'user'}
                  onChange={() => setScope('user')}
                />
                Your hooks (~/.atelier/hooks.json)
              </label>
              <label className="choice">
                <input
                  type="radio"
                  name={`${id}-scope`}
                  checked={scope === 'project'}
                  disabled={!folder}
                  onChange={() => setScope('project')}
                />
                This project's (.atelier/hooks.json)
              </label>
            </div>
          </fieldset>
        </>
      )}
      <TextField
        fields={fields}
        field="matcher"
        label="Matcher"
        value={matcher}
        onChange={setMatcher}
        spellCheck={false}
        className="mono"
        placeholder={matchedOn ? 'bash, edit_file|write_file, mcp__.*' : 'Not used by this event'}
        disabled={!matchedOn}
        hint={
          matchedOn
            ? `Compared with ${matchedOn}: a name, names joined by |, or a pattern. Empty: always.`
            : 'This event runs its hooks every time.'
        }
      />
      <TextField
        fields={fields}
        field="command"
        label="Command"
        value={command}
        onChange={setCommand}
        spellCheck={false}
        className="mono"
        placeholder="node ~/hooks/gate.js"
        wide
        hint="Runs without a shell unless it uses the shell's syntax (a pipe, &&, $VARIABLE). It reads the event as JSON on stdin; exit 2 blocks with stderr as the reason."
      />
      <TextField
        fields={fields}
        field="timeout"
        label="Timeout (seconds)"
        value={timeout}
        onChange={setTimeoutText}
        inputMode="numeric"
      />
      <FormFooter
        error={formError}
        saving={saving}
        submitLabel={editing ? 'Save hook' : 'Add hook'}
        onCancel={onCancel}
      />
    </form>
  )
}
