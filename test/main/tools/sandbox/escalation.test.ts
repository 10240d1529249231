/**
 * Leaving the sandbox: a bash call with `leave_sandbox` asks the person — with the model's
 * justification — even where a rule allows the command, and nobody to ask means no. Allowed, it
 * reaches a loopback server the test runs (network) or writes outside the folder (everything).
 */
import { existsSync, readFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import type { Asker } from '../../../../src-main/approvals/askers'
import type { ApprovalRequest } from '../../../../src-shared/approvals'
import { DEFAULT_SANDBOX_SETTINGS } from '../../../../src-shared/sandbox'
import { useSandboxedTurns } from '../../../support/sandboxed-turns'
import { OUTSIDE_TMP, useTempDirs } from '../../../support/temp-dir'

const JUSTIFICATION = 'fetch the test page the task names'

/** Answers every question with `decision`, keeping what it was asked. */
function answering(decision: 'allow-once' | 'deny'): Asker & { asked: ApprovalRequest[] } {
  const asked: ApprovalRequest[] = []
  return {
    asked,
    ask: async (question) => {
      asked.push(question as ApprovalRequest)
      return { decision }
    },
  }
}

describe('leaving the sandbox', { timeout: 60_000 }, () => {
  const sandboxed = useSandboxedTurns()
  const outside = useTempDirs(OUTSIDE_TMP)
  const servers: Server[] = []
  afterEach(async () => {
    for (const server of servers.splice(0)) await new Promise((done) => server.close(done))
  })

  /** A loopback HTTP server counting the requests it got. */
  async function loopback() {
    const seen: string[] = []
    const server = createServer((request, response) => {
      seen.push(request.url ?? '')
      response.end('reached\n')
    })
    servers.push(server)
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done))
    const { port } = server.address() as AddressInfo
    return { seen, url: `http://127.0.0.1:${port}/hit` }
  }

  const fetchWithNode = (url: string) =>
    `node -e "fetch('${url}').then(r => r.text()).then(t => process.stdout.write(t))"`
  const network = { leave_sandbox: { needs: 'network', justification: JUSTIFICATION } }

  it('asks with the justification even where a rule allows the command; allowed, it reaches the network', async () => {
    const { bash } = await sandboxed()
    const { seen, url } = await loopback()
    const asker = answering('allow-once')
    const call = await bash(fetchWithNode(url), asker, network)

    expect(asker.asked).toHaveLength(1)
    expect(asker.asked[0]?.description.command?.sandbox).toEqual({
      run: 'network',
      justification: JUSTIFICATION,
    })
    expect(asker.asked[0]?.reasons.join(' ')).toContain(JUSTIFICATION)
    expect(call).toMatchObject({
      isError: false,
      shell: { stdout: 'reached\n', sandbox: { state: 'sandboxed', network: true } },
    })
    expect(seen).toEqual(['/hit'])
  })

  it('denied, or with nobody to ask, it does not run and the server sees nothing', async () => {
    const { bash } = await sandboxed()
    const { seen, url } = await loopback()
    const denied = await bash(fetchWithNode(url), answering('deny'), network)
    expect(denied).toMatchObject({ isError: true, errorType: 'denied' })
    const headless = await bash(fetchWithNode(url), undefined, network)
    expect(headless).toMatchObject({ isError: true, errorType: 'denied' })
    expect(seen).toEqual([])
  })

  it('"everything" runs it as in a terminal once allowed, and the card says it ran outside', async () => {
    const { bash } = await sandboxed()
    const target = join(outside(), 'written.txt')
    const asker = answering('allow-once')
    const call = await bash(`echo out > ${target}`, asker, {
      leave_sandbox: { needs: 'everything', justification: 'write the report where the task says' },
    })

    expect(asker.asked[0]?.description.command?.sandbox).toMatchObject({ run: 'everything' })
    expect(call).toMatchObject({ isError: false, shell: { sandbox: { state: 'outside' } } })
    expect(readFileSync(target, 'utf8')).toBe('out\n')
  })

  it('in full-auto it still asks, unless the person lets commands leave unasked there', async () => {
    const { atelier, chat, bash } = await sandboxed({ rules: [] })
    atelier.chats.configure({ id: chat.id, approvalMode: 'full-auto' })
    const target = join(outside(), 'written.txt')
    const leave = { leave_sandbox: { needs: 'everything', justification: 'write the report' } }

    const asked = await bash(`echo out > ${target}`, undefined, leave)
    expect(asked).toMatchObject({ isError: true, errorType: 'denied' })
    expect(existsSync(target)).toBe(false)

    atelier.preferences.update({ sandbox: { ...DEFAULT_SANDBOX_SETTINGS, escapeInFullAuto: true } })
    const unasked = await bash(`echo out > ${target}`, undefined, leave)
    expect(unasked).toMatchObject({ isError: false, shell: { sandbox: { state: 'outside' } } })
    expect(readFileSync(target, 'utf8')).toBe('out\n')
  })
})
