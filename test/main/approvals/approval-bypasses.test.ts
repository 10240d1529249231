/**
 * Issue 29, cases 1–4: shell commands an allow rule let through that ran something else. Each runs
 * through a whole turn — a scripted model, the real parser and policy, a real bash — in `ask` mode with
 * only the named rules allowed and nobody to answer, so a command that asks is refused and one the
 * rules wrongly allow runs and leaves its marker file. The sandbox is off: this is the policy alone,
 * the only wall where no sandbox works (with it on, see sandbox-escapes.test.ts).
 */
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { type Asker, nobodyToAsk } from '../../../src-main/approvals/askers'
import type { ApprovalRequest } from '../../../src-shared/approvals'
import { useAgentFixture } from '../../support/agent-harness'
import { approvalBypasses, gitRepository } from '../../support/approval-bypasses'
import { turnSandboxOff } from '../../support/tool-harness'
import { toolResult } from '../../support/turn-events'

/** What each command leaves behind when it runs what it hides. */
const MARKER = 'pwned'

const bypasses = approvalBypasses(MARKER)

describe('shell commands an allow rule lets through that run something else', { timeout: 60_000 }, () => {
  const fixture = useAgentFixture()

  async function inAskMode(rules: string[]) {
    const setup = await fixture()
    const { atelier, chat } = setup
    atelier.tools.settings.update('local', 'bash', { enabled: true })
    atelier.chats.configure({ id: chat.id, approvalMode: 'ask' })
    turnSandboxOff(atelier)
    for (const rule of rules) atelier.approvals.add({ rule, action: 'allow', scope: 'global' })
    return setup
  }

  const bash = (id: string, command: string) => ({ id, name: 'bash', arguments: JSON.stringify({ command }) })

  it.each(Object.entries(bypasses))('asks, so nobody lets it run: %s', async (_, bypass) => {
    const { fake, project, run } = await inAskMode(bypass.rules)
    bypass.prepare?.(project)
    const gitConfig = join(project, '.git', 'config')
    const config = existsSync(gitConfig) ? readFileSync(gitConfig, 'utf8') : undefined
    fake.enqueue({ toolCalls: [bash('call_1', bypass.command)] }, { text: 'Done.' })
    const { events } = await run('run it', { asker: nobodyToAsk })

    expect(existsSync(join(project, MARKER))).toBe(false)
    if (config !== undefined) expect(readFileSync(gitConfig, 'utf8')).toBe(config)
    expect(toolResult(events, 'call_1')).toMatchObject({ isError: true, errorType: 'denied' })
  })

  it('saves only an exact rule on Always allow for git, so the next git log with --output still asks', async () => {
    const { atelier, fake, project, run } = await inAskMode([])
    gitRepository(project)
    const asked: ApprovalRequest[] = []
    const asker: Asker = {
      ask: async (request) => {
        if (request.kind !== 'approval') throw new Error(`Unexpected ${request.kind}`)
        asked.push(request)
        return asked.length === 1
          ? { decision: 'always', rules: request.suggestedRules, scope: 'project' }
          : { decision: 'deny' }
      },
    }
    fake.enqueue(
      { toolCalls: [bash('call_1', 'git log -1')] },
      { toolCalls: [bash('call_2', 'git log -1')] },
      { toolCalls: [bash('call_3', `git log -1 --output=${MARKER}`)] },
      { text: 'Done.' },
    )
    await run('look at the log', { asker })

    expect(atelier.approvals.list().map((rule) => rule.rule)).toEqual(['bash(git log -1)'])
    expect(asked.map((request) => request.callId)).toEqual(['call_1', 'call_3'])
    expect(existsSync(join(project, MARKER))).toBe(false)
  })
})
