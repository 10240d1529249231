/**
 * A project's instruction files (AGENTS.md and its kin) as the settings name them. The loading
 * lives in `src-main/agent/project-instructions.ts`.
 */
import { type Static, Type } from '@sinclair/typebox'

export const InstructionSettings = Type.Object({
  /** The names looked for in each folder, the first present taken. */
  names: Type.Array(Type.String({ minLength: 1, maxLength: 100, pattern: '^[^/\\\\]+$' }), {
    minItems: 1,
    maxItems: 10,
  }),
  /** All instruction text together, at most; past it the rest is cut and said to be. */
  capKiB: Type.Integer({ minimum: 1, maximum: 1024 }),
})
export type InstructionSettings = Static<typeof InstructionSettings>

export const DEFAULT_INSTRUCTION_SETTINGS: InstructionSettings = {
  names: ['AGENTS.md', 'CLAUDE.md', 'GEMINI.md'],
  capKiB: 32,
}

/** An instruction file as Capabilities and the chat header show it. */
export const InstructionFileInfo = Type.Object({
  /** Relative to the project's top, or `~/.atelier/AGENTS.md`. */
  label: Type.String(),
  /** Estimated at four characters a token. */
  tokens: Type.Number(),
  /** Cut at the cap. */
  cut: Type.Boolean(),
})
export type InstructionFileInfo = Static<typeof InstructionFileInfo>
