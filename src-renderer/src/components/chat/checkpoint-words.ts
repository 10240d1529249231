/** How checkpoints and restores are put into words, the same in the Changes row and the dialogs. */
import type {
  Checkpoint,
  ConflictChoice,
  FileChange,
  RestoreConflict,
  RestoreOutcome,
} from '../../../../src-shared/checkpoints'
import { changedCount } from './useCheckpoints'

const files = (count: number) => `${count.toLocaleString()} ${count === 1 ? 'file' : 'files'}`

/** "Changed 5 files · 2 added · 2 modified · 1 deleted", the kinds there were only. */
export function changesLine(checkpoint: Checkpoint): string {
  const kinds = (['added', 'modified', 'deleted'] as const)
    .filter((kind) => checkpoint[kind] > 0)
    .map((kind) => `${checkpoint[kind].toLocaleString()} ${kind}`)
  return [`Changed ${files(changedCount(checkpoint))}`, ...kinds].join(' · ')
}

/** Who changed a path: the calls' tools, or — none — someone else while the turn ran. */
export function changedByText(change: FileChange): string {
  if (change.by.length === 0) return 'not by the agent'
  return `by ${[...new Set(change.by.map((call) => call.tool))].join(', ')}`
}

/**
 * What a restore did, sentence by sentence: what it set back, what it kept of the person's (the
 * conflicts they left as theirs), and what it could not bring back.
 */
export function outcomeSentences(outcome: RestoreOutcome): string[] {
  const sentences = [
    outcome.restored.length === 0
      ? 'No files needed restoring.'
      : `Restored ${files(outcome.restored.length)}.`,
  ]
  const kept = outcome.conflicts.filter((conflict) => conflict.kept === 'mine').map(({ path }) => path)
  if (kept.length > 0) sentences.push(`Kept your version of ${kept.join(', ')}.`)
  for (const { path, reason } of outcome.notRestorable)
    sentences.push(`Could not bring back ${path}: ${reason.replace(/\.$/, '')}.`)
  return sentences
}

/** The choices to send for the conflicts a preview found, as the person settled them (else: theirs kept). */
export function choicesOf(
  conflicts: readonly RestoreConflict[],
  decisions: Readonly<Record<string, ConflictChoice['take']>>,
): ConflictChoice[] {
  return conflicts.map(({ path }) => ({ path, take: decisions[path] ?? 'mine' }))
}
