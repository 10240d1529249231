import { useEffect, useRef, useState } from 'react'
import type { AtelierApi } from '../../../../src-shared/api'
import type { Preferences } from '../../../../src-shared/contract'
import type { AgentProfile } from '../../../../src-shared/providers'
import type { ToolSettingsDescriptor } from '../../../../src-shared/tools'
import { errorMessage } from '../../errors'
import { ConfirmDialog } from '../ConfirmDialog'
import { AgentProfileCard } from './AgentProfileCard'
import { AgentProfileForm } from './AgentProfileForm'
import { everyTool } from './every-tool'
import { InstructionFilesGroup } from './InstructionFilesGroup'
import { Notice } from './Notice'
import { upsertById } from './upsert'

type Editing = { kind: 'create'; template?: AgentProfile } | { kind: 'edit'; profile: AgentProfile }

interface AgentProfilesSectionProps {
  api: AtelierApi
  preferences: Preferences | undefined
  onChange(changes: Partial<Preferences>): void
}

/**
 * How the agent behaves: profiles with a system prompt, a tool list and a starting mode, and the
 * project instruction files every profile reads.
 */
export function AgentProfilesSection({ api, preferences, onChange }: AgentProfilesSectionProps) {
  const [profiles, setProfiles] = useState<AgentProfile[]>()
  const [tools, setTools] = useState<ToolSettingsDescriptor[]>([])
  const [editing, setEditing] = useState<Editing>()
  const [deleting, setDeleting] = useState<AgentProfile>()
  const [error, setError] = useState<string>()
  const top = useRef<HTMLDivElement>(null)

  useEffect(() => {
    let live = true
    const fail = (failure: unknown) => live && setError(errorMessage(failure))
    api.agents.list().then((list) => live && setProfiles(list), fail)
    everyTool(api).then((list) => live && setTools(list), fail)
    const unsubscribe = api.agents.onChanged(({ agents }) => live && setProfiles(agents))
    return () => {
      live = false
      unsubscribe()
    }
  }, [api])

  function startEditing(next: Editing) {
    setEditing(next)
    // Tools may have been switched on or off since this section opened.
    api.tools.list().then(
      (list) => setTools(list.tools),
      () => undefined,
    )
    requestAnimationFrame(() => top.current?.querySelector<HTMLElement>('.editor input')?.focus())
  }

  async function remove(profile: AgentProfile) {
    setDeleting(undefined)
    try {
      await api.agents.delete({ id: profile.id })
      setProfiles((current) => current?.filter((p) => p.id !== profile.id))
      setError(undefined)
    } catch (failure) {
      setError(errorMessage(failure))
    }
  }

  return (
    <div className="settings-section" ref={top} aria-busy={!profiles && !error ? true : undefined}>
      <header className="section-intro section-intro-row">
        <div>
          <h2>Agent profiles</h2>
          <p className="muted">
            How the agent behaves in a chat: its instructions, the tools it may use and the mode a chat starts
            in.
          </p>
        </div>
        {!editing && profiles && (
          <button type="button" className="primary" onClick={() => startEditing({ kind: 'create' })}>
            New profile
          </button>
        )}
      </header>
      {error && (
        <Notice tone="danger" role="alert">
          {error}
        </Notice>
      )}
      {!profiles && !error && <p className="muted">Loading profiles…</p>}
      {editing && (
        <AgentProfileForm
          key={editing.kind === 'edit' ? editing.profile.id : `new-${editing.template?.id ?? ''}`}
          api={api}
          tools={tools}
          profile={editing.kind === 'edit' ? editing.profile : undefined}
          template={editing.kind === 'create' ? editing.template : undefined}
          onCancel={() => setEditing(undefined)}
          onDone={(saved) => {
            setProfiles((current) => upsertById(current, saved))
            setEditing(undefined)
          }}
        />
      )}
      {profiles && (
        <div className="item-list">
          {profiles.map((profile) => (
            <AgentProfileCard
              key={profile.id}
              profile={profile}
              tools={tools}
              onEdit={() => startEditing({ kind: 'edit', profile })}
              onDuplicate={() => startEditing({ kind: 'create', template: profile })}
              onDelete={() => setDeleting(profile)}
            />
          ))}
        </div>
      )}
      <InstructionFilesGroup preferences={preferences} onChange={onChange} />
      {deleting && (
        <ConfirmDialog
          title={`Delete “${deleting.name}”?`}
          message="Chats that use this profile go back to the Default profile."
          confirmLabel="Delete"
          onCancel={() => setDeleting(undefined)}
          onConfirm={() => void remove(deleting)}
        />
      )}
    </div>
  )
}
