import { useId } from 'react'
import type { AgentProfile } from '../../../../src-shared/providers'
import type { ToolSettingsDescriptor } from '../../../../src-shared/tools'
import { APPROVAL_MODE_LABELS } from '../approval-words'
import { ItemActions } from './ItemActions'

interface AgentProfileCardProps {
  profile: AgentProfile
  tools: ToolSettingsDescriptor[]
  onEdit(): void
  onDuplicate(): void
  onDelete(): void
}

/** A profile at a glance; the built-in one is read-only and can only be duplicated. */
export function AgentProfileCard({ profile, tools, onEdit, onDuplicate, onDelete }: AgentProfileCardProps) {
  const id = useId()
  const titles = new Map(tools.map((tool) => [tool.name, tool.title]))
  const toolText =
    profile.tools === null
      ? 'All enabled tools'
      : profile.tools.length === 0
        ? 'No tools'
        : profile.tools.map((name) => titles.get(name) ?? name).join(', ')

  return (
    <section className="item-card" aria-labelledby={`${id}-name`}>
      <div className="item-card-head">
        <div className="item-card-title">
          <h3 id={`${id}-name`}>{profile.name}</h3>
          {profile.builtin && <span className="tag">Built-in · read-only</span>}
        </div>
        <div className="item-card-actions">
          <button
            type="button"
            className="small"
            aria-label={`Duplicate profile ${profile.name}`}
            onClick={onDuplicate}
          >
            Duplicate
          </button>
          {!profile.builtin && (
            <ItemActions what="profile" name={profile.name} onEdit={onEdit} onDelete={onDelete} />
          )}
        </div>
      </div>
      <dl className="facts">
        <div>
          <dt>Tools</dt>
          <dd>{toolText}</dd>
        </div>
        <div>
          <dt>Default mode</dt>
          <dd>{profile.defaultMode === 'agent' ? 'Agent' : 'Chat'}</dd>
        </div>
        <div>
          <dt>Approval mode</dt>
          <dd>{APPROVAL_MODE_LABELS[profile.approvalMode]}</dd>
        </div>
        <div>
          <dt>Subagent</dt>
          <dd>
            {profile.delegable ? `Takes tasks: ${profile.description || 'no description'}` : 'Takes no tasks'}
          </dd>
        </div>
      </dl>
      <details className="prompt-preview">
        <summary>System prompt</summary>
        <pre>{profile.systemPrompt || '(empty)'}</pre>
      </details>
    </section>
  )
}
