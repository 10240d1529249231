/**
 * Keeps a record of each shell command while it runs — its process and the end of its output — so
 * that when Atelier dies under a command, the next open can tell the model what is known of it
 * (see src-main/agent/interrupted-commands.ts) rather than only that the call did not finish.
 */

import { processStartTime } from '../core/process-owner'
import type { RunningCommandsRepository } from '../db/running-commands-repository'
import type { OutputStream, StartedCommand } from './processes'

/** How much of each stream a record keeps: its end, enough to see how far a command had got. */
export const RECORDED_OUTPUT_CHARS = 4000

/** How often, at most, a running command's output is saved: a crash loses at most this much of it. */
export const OUTPUT_SAVE_INTERVAL_MS = 1000

export class CommandJournal {
  constructor(
    private readonly repository: RunningCommandsRepository,
    private readonly now: () => number = Date.now,
  ) {}

  /** Records the command one call runs, until the call that it returns: the command has ended. */
  watch(chatId: string, callId: string, command: StartedCommand): () => void {
    this.repository.begin({
      chatId,
      callId,
      pid: command.pid,
      ...withStart(processStartTime(command.pid)),
      startedAt: this.now(),
    })
    let saved = { stdout: '', stderr: '' }
    const timer = setInterval(() => {
      const output = lastOf(command.output())
      if (output.stdout === saved.stdout && output.stderr === saved.stderr) return
      this.repository.saveOutput(chatId, callId, output)
      saved = output
    }, OUTPUT_SAVE_INTERVAL_MS)
    // The record is for when Atelier is gone; it never keeps Atelier running.
    timer.unref()
    return () => {
      clearInterval(timer)
      this.repository.end(chatId, callId)
    }
  }
}

function withStart(processStarted: string | undefined): { processStarted?: string } {
  return processStarted === undefined ? {} : { processStarted }
}

function lastOf(output: Record<OutputStream, string>): Record<OutputStream, string> {
  return {
    stdout: output.stdout.slice(-RECORDED_OUTPUT_CHARS),
    stderr: output.stderr.slice(-RECORDED_OUTPUT_CHARS),
  }
}
