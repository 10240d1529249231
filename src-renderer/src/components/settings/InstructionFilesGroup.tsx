import { useId } from 'react'
import type { Preferences } from '../../../../src-shared/contract'
import { DEFAULT_INSTRUCTION_SETTINGS, type InstructionSettings } from '../../../../src-shared/instructions'
import { NumberSetting } from './NumberSetting'
import { PathListGroup } from './PathListGroup'

interface InstructionFilesGroupProps {
  preferences: Preferences | undefined
  onChange(changes: Partial<Preferences>): void
}

/**
 * Which files count as a project's instructions (the first present in each folder is taken) and how
 * much of them, together, reaches the system prompt.
 */
export function InstructionFilesGroup({ preferences, onChange }: InstructionFilesGroupProps) {
  const id = useId()
  const settings = preferences?.instructions
  const save = (changes: Partial<InstructionSettings>) => {
    if (settings) onChange({ instructions: { ...settings, ...changes } })
  }
  return (
    <>
      <PathListGroup
        saved={settings?.names}
        onSave={(names) => save({ names })}
        title="Project instruction files"
        hint="In the chat's folder, each folder above it up to the repository's top, and ~/.atelier, the first of these names found is read into the system prompt — in every profile. They tell the model about the project; they never change what it is allowed to do."
        label="File names, first found wins"
        placeholder="AGENTS.md"
        saveLabel="Save file names"
        defaults={DEFAULT_INSTRUCTION_SETTINGS.names}
      />
      <section className="setting-group" aria-labelledby={`${id}-size`}>
        <h3 id={`${id}-size`}>Project instructions’ size</h3>
        <NumberSetting
          label="Instructions at most (KiB)"
          saved={settings?.capKiB}
          min={1}
          max={1024}
          hint="All instruction files together; past this they are cut, and the cut is shown. 1 to 1024; saved when you leave the field."
          onSave={(capKiB) => save({ capKiB })}
        />
      </section>
    </>
  )
}
