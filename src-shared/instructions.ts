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
