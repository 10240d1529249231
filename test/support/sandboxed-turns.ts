/**
 * Turns whose bash calls meet the sandbox of this machine (bubblewrap here): a scripted model runs
 * one command a turn, in `ask` mode with the given allow rules (`bash(*)` unless told) and nobody to
 * answer, so whatever the policy lets through runs, and only the sandbox stands between it and the
 * machine. The home and the data folder are scratch folders outside `/tmp` — a sandboxed command
 * has a private `/tmp`, which would hide them from it whatever the policy said — and HOME is the
 * scratch home, so `~` in a command is the home whose secrets the sandbox hides.
 */
import { realpathSync } from 'node:fs'
import { afterEach, vi } from 'vitest'
import { LOCAL_USER } from '../../src-main/app/create-atelier'
import { type Asker, nobodyToAsk } from '../../src-main/approvals/askers'
import type { ShellCommandResult } from '../../src-main/tools/processes'
import type { SandboxReport } from '../../src-shared/sandbox'
import { type AgentFixtureOptions, useAgentFixture } from './agent-harness'
import { OUTSIDE_TMP, useTempDirs } from './temp-dir'
import { type EndedCall, toolResult } from './turn-events'

export interface SandboxedTurnsOptions {
  /** The allow rules in force; `bash(*)` by default, so the policy lets every command through. */
  rules?: string[]
  detectSandbox?: AgentFixtureOptions['detectSandbox']
  /** The bash tool's settings besides `enabled` (e.g. `timeoutSeconds`). */
  parameters?: Record<string, unknown>
}

/** An ended bash call, with what its card shows of the command. */
export type EndedCommand = EndedCall & { shell: ShellCommandResult & { sandbox?: SandboxReport } }

export function useSandboxedTurns() {
  const fixture = useAgentFixture()
  const scratch = useTempDirs(OUTSIDE_TMP)
  afterEach(() => {
    vi.unstubAllEnvs()
  })
  return async ({ rules = ['bash(*)'], detectSandbox, parameters = {} }: SandboxedTurnsOptions = {}) => {
    const home = realpathSync(scratch())
    const dataDir = realpathSync(scratch())
    // The shell passes Atelier's HOME on, as the app's home is the OS's.
    vi.stubEnv('HOME', home)
    const setup = await fixture('openai-chat', [], { home, dataDir, ...(detectSandbox && { detectSandbox }) })
    const { atelier, chat, fake, run } = setup
    atelier.tools.settings.update(LOCAL_USER, 'bash', { enabled: true, parameters })
    atelier.chats.configure({ id: chat.id, approvalMode: 'ask' })
    for (const rule of rules) atelier.approvals.add({ rule, action: 'allow', scope: 'global' })
    let calls = 0
    /** Runs `command` (with `extra` arguments: `leave_sandbox`) as the one call of a turn; the call as it ended. */
    const bash = async (
      command: string,
      asker: Asker = nobodyToAsk,
      extra: Record<string, unknown> = {},
    ): Promise<EndedCommand> => {
      const id = `call_${++calls}`
      fake.enqueue(
        { toolCalls: [{ id, name: 'bash', arguments: JSON.stringify({ command, ...extra }) }] },
        { text: 'Done.' },
      )
      const { events } = await run('run it', { asker })
      const ended = toolResult(events, id)
      if (!ended) throw new Error(`${id} did not end: ${JSON.stringify(events.at(-1))}`)
      const shell = ended.display?.kind === 'shell' ? ended.display : undefined
      return { ...ended, shell: shell as EndedCommand['shell'] }
    }
    return { ...setup, home, dataDir, scratch, bash }
  }
}
