import { type FormEvent, useId, useState } from 'react'
import type { AtelierApi } from '../../../../src-shared/api'
import { APPROVAL_MODES, type ApprovalMode, DEFAULT_APPROVAL_MODE } from '../../../../src-shared/approvals'
import type { ChatMode } from '../../../../src-shared/contract'
import type { AgentProfile } from '../../../../src-shared/providers'
import type { ToolSettingsDescriptor } from '../../../../src-shared/tools'
import { APPROVAL_MODE_HINTS, APPROVAL_MODE_LABELS } from '../approval-words'
import { FormFooter } from './FormFooter'
import { fieldErrors } from './field-errors'
import { splitRequestError } from './request-errors'
import { TextField } from './TextField'

interface AgentProfileFormProps {
  api: AtelierApi
  tools: ToolSettingsDescriptor[]
  /** The profile being edited; absent when creating one. */
  profile?: AgentProfile
  /** Fields to start a new profile from (duplicating one). */
  template?: AgentProfile
  onDone(profile: AgentProfile): void
  onCancel(): void
}

type Field = 'name' | 'systemPrompt' | 'tools' | 'description'

/**
 * Creates or edits an agent profile: its name, system prompt, tools, and the modes its chats start
 * in (agent or chat, and what runs without asking).
 */
export function AgentProfileForm({ api, tools, profile, template, onDone, onCancel }: AgentProfileFormProps) {
  const id = useId()
  const start = profile ?? template
  const [name, setName] = useState(profile?.name ?? (template ? `${template.name} (copy)` : ''))
  const [systemPrompt, setSystemPrompt] = useState(start?.systemPrompt ?? '')
  const [restricted, setRestricted] = useState(start ? start.tools !== null : false)
  const [chosen, setChosen] = useState<Set<string>>(() => new Set(start?.tools ?? []))
  const [defaultMode, setDefaultMode] = useState<ChatMode>(start?.defaultMode ?? 'agent')
  const [approvalMode, setApprovalMode] = useState<ApprovalMode>(start?.approvalMode ?? DEFAULT_APPROVAL_MODE)
  const [description, setDescription] = useState(start?.description ?? '')
  const [delegable, setDelegable] = useState(start?.delegable ?? false)
  const [errors, setErrors] = useState<Partial<Record<Field, string>>>({})
  const [formError, setFormError] = useState<string>()
  const [saving, setSaving] = useState(false)

  // Tools named by the profile but no longer registered stay listed, so saving never drops them silently.
  const known = new Set(tools.map((tool) => tool.name))
  const missing = [...chosen].filter((name) => !known.has(name))

  async function submit(event: FormEvent) {
    event.preventDefault()
    setFormError(undefined)
    if (!name.trim()) {
      setErrors({ name: 'Give the profile a name.' })
      return
    }
    setErrors({})
    const body = {
      name: name.trim(),
      systemPrompt,
      tools: restricted ? [...chosen] : null,
      defaultMode,
      approvalMode,
      description: description.trim(),
      delegable,
    }
    setSaving(true)
    try {
      onDone(profile ? await api.agents.update({ id: profile.id, ...body }) : await api.agents.create(body))
    } catch (error) {
      const split = splitRequestError(
        error,
        ['name', 'systemPrompt', 'tools', 'description'],
        (_, message) => message,
      )
      setErrors(split.fields)
      setFormError(split.form)
    } finally {
      setSaving(false)
    }
  }

  const toggle = (tool: string, on: boolean) =>
    setChosen((current) => {
      const next = new Set(current)
      if (on) next.add(tool)
      else next.delete(tool)
      return next
    })

  const fields = fieldErrors<Field>(id, errors)

  return (
    <form className="editor" aria-labelledby={`${id}-title`} noValidate onSubmit={submit}>
      <h3 id={`${id}-title`}>{profile ? `Edit ${profile.name}` : 'New agent profile'}</h3>
      <TextField
        fields={fields}
        field="name"
        label="Name"
        value={name}
        onChange={setName}
        maxLength={100}
        required
        placeholder="Reviewer"
      />
      <TextField
        fields={fields}
        field="systemPrompt"
        label="System prompt"
        rows={7}
        value={systemPrompt}
        onChange={setSystemPrompt}
        placeholder="You review changes in this project. Read before you judge; point at lines; suggest, do not edit."
        hint="Given to the model at the start of every turn, before the conversation."
      />
      <fieldset className="field">
        <legend className="field-label">Tools</legend>
        <div className="choice-list">
          <label className="choice">
            <input
              type="radio"
              name={`${id}-tools`}
              checked={!restricted}
              onChange={() => setRestricted(false)}
            />
            All enabled tools
          </label>
          <label className="choice">
            <input
              type="radio"
              name={`${id}-tools`}
              checked={restricted}
              onChange={() => setRestricted(true)}
            />
            Only the tools checked below
          </label>
        </div>
        {restricted && (
          <>
            <ul className="tool-checklist" aria-label="Tools this profile may use">
              {tools.map((tool) => (
                <li key={tool.name}>
                  <label className="choice">
                    <input
                      type="checkbox"
                      checked={chosen.has(tool.name)}
                      onChange={(event) => toggle(tool.name, event.target.checked)}
                    />
                    <span>{tool.title}</span> <code className="tool-name">{tool.name}</code>
                    {!tool.enabled && <span className="tag">off in Tools</span>}
                  </label>
                </li>
              ))}
              {missing.map((name) => (
                <li key={name}>
                  <label className="choice">
                    <input type="checkbox" checked onChange={() => toggle(name, false)} />
                    <code className="tool-name">{name}</code> <span className="tag">not installed</span>
                  </label>
                </li>
              ))}
            </ul>
            <p className="field-hint">
              {chosen.size === 0
                ? 'No tools: the model can only talk.'
                : `${chosen.size} ${chosen.size === 1 ? 'tool' : 'tools'}. Tools turned off in Tools stay off.`}
            </p>
          </>
        )}
        {fields.errorOf('tools')}
      </fieldset>
      <fieldset className="field">
        <legend className="field-label">Default mode</legend>
        <div role="radiogroup" aria-label="Default mode" className="segmented">
          {(['agent', 'chat'] as const).map((mode) => (
            <label key={mode}>
              <input
                type="radio"
                name={`${id}-mode`}
                checked={defaultMode === mode}
                onChange={() => setDefaultMode(mode)}
              />
              {mode === 'agent' ? 'Agent' : 'Chat'}
            </label>
          ))}
        </div>
        <p className="field-hint">
          {defaultMode === 'agent'
            ? 'Chats with this profile start in agent mode: tools work in the chat’s folder.'
            : 'Chats with this profile start in chat mode: the folder is not given to tools.'}
        </p>
      </fieldset>
      <div className="field">
        <label className="field-label" htmlFor={`${id}-approval`}>
          Approval mode
        </label>
        <select
          id={`${id}-approval`}
          value={approvalMode}
          aria-describedby={`${id}-approval-hint`}
          onChange={(event) => setApprovalMode(event.target.value as ApprovalMode)}
        >
          {APPROVAL_MODES.map((mode) => (
            <option key={mode} value={mode}>
              {APPROVAL_MODE_LABELS[mode]}
            </option>
          ))}
        </select>
        <p className="field-hint" id={`${id}-approval-hint`}>
          {APPROVAL_MODE_HINTS[approvalMode]} Chats with this profile start in it; a chat’s header can switch
          it.
        </p>
      </div>
      <TextField
        fields={fields}
        field="description"
        label="Description"
        value={description}
        onChange={setDescription}
        maxLength={500}
        placeholder="Reviews a diff and lists the problems it finds, with file:line references."
        hint="One line on what the profile is for: what the agent reads when it picks a subagent."
      />
      <label className="choice">
        <input type="checkbox" checked={delegable} onChange={(event) => setDelegable(event.target.checked)} />
        The agent may hand tasks to this profile (a subagent, with the task tool)
      </label>
      <FormFooter
        error={formError}
        saving={saving}
        submitLabel={profile ? 'Save profile' : 'Create profile'}
        onCancel={onCancel}
      />
    </form>
  )
}
