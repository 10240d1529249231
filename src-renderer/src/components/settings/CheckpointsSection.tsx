import { useId } from 'react'
import type { CheckpointSettings } from '../../../../src-shared/checkpoints'
import type { Preferences } from '../../../../src-shared/contract'
import { NumberSetting } from './NumberSetting'
import { PathListGroup } from './PathListGroup'
import { SwitchField } from './SwitchField'

const MIB = 1024 * 1024
const GIB = 1024 * MIB

interface CheckpointsSectionProps {
  preferences: Preferences | undefined
  onChange(changes: Partial<Preferences>): void
}

/**
 * Checkpoints: whether the bound folder is recorded around the agent's changes (so a turn can be
 * undone or the chat rewound), where not, what is too large to keep, and how long they are kept.
 */
export function CheckpointsSection({ preferences, onChange }: CheckpointsSectionProps) {
  const id = useId()
  const settings = preferences?.checkpoints

  const save = (changes: Partial<CheckpointSettings>) => {
    if (settings) onChange({ checkpoints: { ...settings, ...changes } })
  }

  return (
    <div className="settings-section">
      <header className="section-intro">
        <h2>Checkpoints</h2>
        <p className="muted">
          Before a turn first changes the chat’s folder, and after it, Atelier records the folder — whatever
          made the change: the file tools, a command, an MCP server or a custom tool. Each turn then shows
          what it changed, and you can undo it or rewind the chat to before any prompt. The records live in
          Atelier’s data folder; your folder and its <code>.git</code> are never written to.
        </p>
      </header>
      <section className="setting-group" aria-labelledby={`${id}-recording`}>
        <h3 id={`${id}-recording`}>Recording</h3>
        <SwitchField
          label="Record checkpoints"
          hint="Off: turns show no changes, and nothing the agent does can be undone here."
          checked={settings?.enabled ?? false}
          locked={!settings}
          onChange={(enabled) => save({ enabled })}
        />
        <NumberSetting
          label="Files larger than (MiB) are recorded by size only"
          saved={settings && Math.max(1, Math.round(settings.maxFileBytes / MIB))}
          min={1}
          max={1024}
          hint="A change to such a file is shown, but an undo cannot bring its content back. 1 to 1024; saved when you leave the field."
          onSave={(mib) => save({ maxFileBytes: mib * MIB })}
        />
      </section>
      <section className="setting-group" aria-labelledby={`${id}-retention`}>
        <h3 id={`${id}-retention`}>Keeping them</h3>
        <NumberSetting
          label="Keep checkpoints for (days)"
          saved={settings?.retentionDays}
          min={1}
          max={3650}
          hint="Older ones are dropped. 1 to 3650; saved when you leave the field."
          onSave={(retentionDays) => save({ retentionDays })}
        />
        <NumberSetting
          label="Keep at most (GiB per folder)"
          saved={settings && Math.max(1, Math.round(settings.retentionBytes / GIB))}
          min={1}
          max={1024}
          hint="Past this, a folder’s oldest checkpoints are dropped first. 1 to 1024; saved when you leave the field."
          onSave={(gib) => save({ retentionBytes: gib * GIB })}
        />
      </section>
      <PathListGroup
        saved={settings?.offFolders}
        onSave={(offFolders) => save({ offFolders })}
        title="Folders without checkpoints"
        hint="Folders that are never recorded, even with checkpoints on — a huge data folder, say. Give absolute paths, as the chats bind them."
        label="Folders without checkpoints"
        placeholder="/home/me/datasets"
        saveLabel="Save folders without checkpoints"
      />
    </div>
  )
}
