/**
 * A subfolder's instruction file joins a chat the first time the agent reads or edits something
 * under that subfolder: the call's result carries the file (so the model reads it at once) and
 * says it was added, and later turns' system prompts carry it with the others (as Codex does).
 */
import type { InstructionFilesRepository } from '../db/instruction-files-repository'
import type { AfterToolHook } from '../tools/pipeline/hooks'
import { type InstructionOptions, instructionsFor, startingPaths } from './project-instructions'

export interface SubfolderInstructionsDeps {
  taken: InstructionFilesRepository
  options: () => InstructionOptions
}

/** The after-tool hook that adds a subfolder's instructions to a read's or an edit's result. */
export function subfolderInstructionsHook({ taken, options }: SubfolderInstructionsDeps): AfterToolHook {
  return ({ description, context }, result) => {
    const { chatId, workingDirectory: folder, mode } = context
    if (!chatId || !folder || mode !== 'agent' || result.isError) return undefined
    if (description.kind !== 'read' && description.kind !== 'edit') return undefined
    const current = options()
    // What is loaded, by path alone: nothing is read unless a file is new to the chat.
    const loaded = new Set([...startingPaths(folder, current), ...taken.list(chatId)])
    const added = description.locations.flatMap((location) => {
      const files = instructionsFor(folder, location, loaded, current)
      for (const file of files) {
        loaded.add(file.path)
        taken.add(chatId, file.path)
      }
      return files
    })
    if (added.length === 0) return undefined
    const blocks = added.map(
      (file) =>
        `<project-instructions path="${file.label}">\n${file.text.trim()}\n</project-instructions>\nThese instructions from ${file.label} were added to the project instructions: they apply to work under its folder, over the ones above it where they disagree.`,
    )
    return { ...result, content: [result.content, ...blocks].join('\n\n') }
  }
}
