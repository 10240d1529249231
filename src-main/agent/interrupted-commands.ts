/**
 * After a crash, what the model is told of a shell command that was running: the call was cut off,
 * whether its command still runs, and its output so far — a result for the call, stored once, at
 * the first open after the turn was marked interrupted. A command that did its work before the
 * crash is then not simply run again on Retry because the model was told only that it did not finish.
 */
import type { ToolResultPart } from '../../src-shared/agent'
import type { ConversationRepository } from '../db/conversation-repository'
import type { Database } from '../db/database'
import type { InterruptedCommand, RunningCommandsRepository } from '../db/running-commands-repository'
import { OUTPUT_SAVE_INTERVAL_MS } from '../tools/command-journal'
import { commandIsRunning } from '../tools/processes'

export interface InterruptedCommandsDeps {
  db: Database
  commands: RunningCommandsRepository
  conversation: ConversationRepository
  /** Whether the command still runs; the real processes unless a test says otherwise. */
  isRunning?: (command: InterruptedCommand) => boolean
}

/** Gives each interrupted command's call its result; returns how many there were. */
export function answerInterruptedCommands({
  db,
  commands,
  conversation,
  isRunning = (command) => commandIsRunning(command.pid, command.processStarted),
}: InterruptedCommandsDeps): number {
  const interrupted = commands.interrupted()
  for (const command of interrupted) {
    const result: ToolResultPart = {
      type: 'tool_result',
      callId: command.callId,
      name: command.name,
      content: describeInterrupted(command, isRunning(command)),
      isError: true,
      errorType: 'interrupted',
    }
    // Together: a crash here neither loses the record nor answers the call twice.
    db.transaction(() => {
      conversation.append(command.chatId, command.turnId, 'tool', [result])
      commands.end(command.chatId, command.callId)
    })()
  }
  return interrupted.length
}

/** What the model reads of a command Atelier went away from. */
function describeInterrupted(command: InterruptedCommand, running: boolean): string {
  const now = running
    ? `It is still running now (process ${command.pid}): it may still change things, and what it prints from here on is not captured.`
    : 'It is not running now: it was ended with Atelier, or ended on its own after Atelier stopped.'
  const stream = (name: 'stdout' | 'stderr') =>
    command[name] === '' ? `${name}: (empty)` : `${name} (its end):\n${command[name].replace(/\n?$/, '\n')}`
  return [
    'This call was interrupted: Atelier stopped (closed, crashed or was killed) while its command was still running, so no exit code was recorded.',
    now,
    `Its output so far, as saved up to ${OUTPUT_SAVE_INTERVAL_MS / 1000} s before Atelier stopped:`,
    stream('stdout'),
    stream('stderr'),
  ].join('\n')
}
