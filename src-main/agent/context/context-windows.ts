/**
 * How many tokens a model's context holds. A person's setting for the provider wins; then what the
 * provider's model listing says (Gemini's inputTokenLimit, an OpenAI-compatible server's
 * context_length); then this table of well-known models, matched by the start of the model name;
 * then DEFAULT_CONTEXT_WINDOW. The table is conservative: where a family has larger variants, the
 * smaller window is listed, since a window set too large costs a refused request (recovered by
 * compacting, see compaction.ts) and one set too small only compacts early.
 */
import type { ContextStatus, ProviderKind } from '../../../src-shared/agent'

/** For a model nobody knows: what most current models offer at least. */
export const DEFAULT_CONTEXT_WINDOW = 128_000

/** Longest prefix first wins, so `gpt-4o-mini` is not read as `gpt-4`. */
const WELL_KNOWN = (
  [
    ['gpt-5', 400_000],
    ['gpt-4.1', 1_047_576],
    ['gpt-4o', 128_000],
    ['gpt-4-turbo', 128_000],
    ['gpt-4', 8_192],
    ['gpt-3.5-turbo', 16_385],
    ['o1-mini', 128_000],
    ['o1', 200_000],
    ['o3', 200_000],
    ['o4-mini', 200_000],
    ['codex-mini', 200_000],
    ['claude-', 200_000],
    ['gemini-1.5-pro', 2_097_152],
    ['gemini-1.5', 1_048_576],
    ['gemini-2', 1_048_576],
    ['gemini-3', 1_048_576],
    ['gemma-3', 128_000],
    ['llama-3', 128_000],
    ['llama3', 128_000],
    ['qwen2.5', 32_768],
    ['qwen3', 32_768],
    ['mistral-large', 128_000],
    ['deepseek', 128_000],
  ] as [prefix: string, tokens: number][]
).sort((a, b) => b[0].length - a[0].length)

export interface ContextWindow {
  tokens: number
  source: ContextStatus['windowSource']
}

/**
 * The window of `model`: the provider's setting, else the listing's figure, else the table, else
 * the default. `models/` (Gemini's listing names) and an `org/` prefix (OpenRouter) are ignored.
 */
export function contextWindowFor(
  _kind: ProviderKind,
  model: string,
  setting: number | null | undefined,
  listed?: number,
): ContextWindow {
  if (setting) return { tokens: setting, source: 'setting' }
  if (listed) return { tokens: listed, source: 'listing' }
  const name = model
    .toLowerCase()
    .replace(/^models\//, '')
    .replace(/^[^/]+\//, '')
  const known = WELL_KNOWN.find(([prefix]) => name.startsWith(prefix))
  return known ? { tokens: known[1], source: 'table' } : { tokens: DEFAULT_CONTEXT_WINDOW, source: 'default' }
}
