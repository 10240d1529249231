import type { Command } from 'commander'
import type { Checkpoint, RestoreOutcome } from '../../../src-shared/checkpoints'
import { AtelierError } from '../../../src-shared/errors'
import { printJson, withAtelier } from '../open-atelier'

export function registerCheckpointsCommand(program: Command): void {
  const checkpoints = program
    .command('checkpoints')
    .description("snapshots of a chat's folder around the agent's changes: list them, see them, restore them")
  checkpoints
    .command('list')
    .description('every checkpoint, oldest first, with what its turn (or restore) changed')
    .option('--chat <id>', "only this chat's")
    .option('--json', 'print them as JSON')
    .action((options: { chat?: string; json?: boolean }, command: Command) =>
      withAtelier(command, ({ chats, checkpoints: service }) => {
        const ids = options.chat ? [options.chat] : chats.list().map((chat) => chat.id)
        const all = ids
          .flatMap((chatId) => service.list({ chatId }).checkpoints)
          .sort((a, b) => a.createdAt - b.createdAt)
        if (options.json) printJson(all)
        else
          process.stdout.write(all.length === 0 ? 'No checkpoints.\n' : `${all.map(describe).join('\n')}\n`)
      }),
    )
  checkpoints
    .command('diff <id>')
    .description('what a checkpoint changed, file by file, with the call that changed each and its diff')
    .option('--json', 'print it as JSON')
    .action((id: string, options: { json?: boolean }, command: Command) =>
      withAtelier(command, ({ checkpoints: service }) => {
        const changes = service.changes({ id })
        if (options.json) return printJson(changes)
        for (const file of changes.files) {
          const by = file.by.length > 0 ? file.by.map((call) => call.tool).join(', ') : 'not the agent'
          process.stdout.write(`${file.change} ${file.path} (${by})\n`)
          if (file.diff) process.stdout.write(file.diff.replace(/\n?$/, '\n'))
          else if (file.noDiff) process.stdout.write(`  (${file.noDiff})\n`)
        }
      }),
    )
  checkpoints
    .command('restore <id>')
    .description(
      "rewind to before the checkpoint's turn: the folder and the conversation (the later turns go to a fork chat); a restore's own checkpoint is undone (redo). Files changed since are conflicts and are kept as they are",
    )
    .option('--files-only', 'restore the folder, not the conversation')
    .option('--conversation-only', 'rewind the conversation, not the folder')
    .option('--json', 'print the outcome as JSON')
    .action(
      (
        id: string,
        options: { filesOnly?: boolean; conversationOnly?: boolean; json?: boolean },
        command: Command,
      ) =>
        withAtelier(command, async ({ checkpoints: service }) => {
          if (options.filesOnly && options.conversationOnly) {
            throw new AtelierError(
              'invalid_parameters',
              'Choose --files-only or --conversation-only, not both.',
            )
          }
          const checkpoint = service.checkpoint(id)
          const scope = options.filesOnly ? 'files' : options.conversationOnly ? 'conversation' : 'both'
          const outcome =
            checkpoint.kind === 'restore' || checkpoint.turnId === null
              ? await service.undo({ id })
              : await service.rewind({ chatId: checkpoint.chatId, turnId: checkpoint.turnId, scope })
          if (options.json) printJson(outcome)
          else process.stdout.write(describeOutcome(outcome))
        }),
    )
  checkpoints
    .command('check')
    .description('hash every stored object again and follow every snapshot: exit 1 when anything is broken')
    .action((_options: unknown, command: Command) =>
      withAtelier(command, ({ checkpoints: service }) => {
        const problems = service.check()
        for (const { folder, object, problem } of problems)
          process.stdout.write(`${folder}: ${object}: ${problem}\n`)
        if (problems.length > 0) process.exitCode = 1
        else process.stdout.write('The checkpoint store is sound.\n')
      }),
    )
}

function describe(checkpoint: Checkpoint): string {
  const when = new Date(checkpoint.createdAt).toISOString()
  const counts = `+${checkpoint.added} ~${checkpoint.modified} -${checkpoint.deleted}`
  const what =
    checkpoint.kind === 'turn'
      ? `turn ${checkpoint.turnId}`
      : `restore of ${checkpoint.restored?.checkpointId || 'the conversation'} (${checkpoint.restored?.scope})`
  const state =
    checkpoint.endedAt === null
      ? ' [running]'
      : checkpoint.undoneBy
        ? ` [undone by ${checkpoint.undoneBy}]`
        : ''
  return `${checkpoint.id}  ${when}  chat ${checkpoint.chatId}  ${what}  ${counts}${state}`
}

/** What a restore did, a line for each kind of outcome, with how to undo it. */
export function describeOutcome(outcome: RestoreOutcome): string {
  const lines = [
    outcome.restored.length > 0
      ? `Restored ${outcome.restored.length}: ${outcome.restored.join(', ')}`
      : 'No file restored.',
    ...outcome.conflicts.map(
      (conflict) => `Conflict, kept yours: ${conflict.path} (changed since the checkpoint)`,
    ),
    ...outcome.notRestorable.map((item) => `Not restorable: ${item.path}: ${item.reason}`),
    ...(outcome.forkChatId ? [`The later turns are in the fork chat ${outcome.forkChatId}.`] : []),
    ...(outcome.checkpointId
      ? [`Undo this restore with: atelier checkpoints restore ${outcome.checkpointId}`]
      : []),
  ]
  return `${lines.join('\n')}\n`
}
