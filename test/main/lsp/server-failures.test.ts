import { randomUUID } from 'node:crypto'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { CODE_TOOLS } from '../../../src-main/tools/code-intelligence'
import { SERVER_WAIT_MS, useCodeProject } from '../../support/code-intelligence'
import { descendantProcesses } from '../../support/descendants'
import { useTempDirs } from '../../support/temp-dir'
import { writeTree } from '../../support/tool-harness'

/** Marks the hanging server's command line, so this file finds its own processes. */
const MARKER = `atelier-lsp-hang-${randomUUID()}`
const node = process.execPath
/** Publishes each change's diagnostics late: past this file's wait budget of 1 s. */
const SLOW_SERVER = fileURLToPath(new URL('../../fixtures/slow-language-server.mjs', import.meta.url))

/** Polls until `check` holds (after `step` each time), or fails after `ms`: the machine may be loaded, so no fixed sleep. */
async function eventually(check: () => boolean, ms = 20_000, step = async () => {}): Promise<void> {
  const until = Date.now() + ms
  for (await step(); !check(); await step()) {
    if (Date.now() > until) throw new Error('still not so')
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

describe('language servers that fail', () => {
  const tempDir = useTempDirs()
  const project = useCodeProject(
    { 'notes.txt': 'nothing to check here\n' },
    {
      waitSeconds: 1,
      servers: [
        { id: 'crasher', languages: ['crash'], command: [node, '-e', 'process.exit(3)'] },
        {
          id: 'hanger',
          languages: ['hang'],
          command: [node, '-e', `setInterval(() => {}, 1000) // ${MARKER}`],
        },
        { id: 'nowhere', languages: ['zz'], command: ['atelier-no-such-language-server', '--stdio'] },
        { id: 'slow', languages: ['slow'], command: [node, SLOW_SERVER, '2500'] },
      ],
    },
  )

  it(
    'restarts a server that crashes once, then reports it as failed',
    async () => {
      const result = await project.run('write_file', { path: 'a.crash', content: 'x\n' })
      expect(result.isError).toBe(false)
      expect(result.content).toMatch(/No diagnostics for a\.crash: crasher crashed again after its restart/)
      const crasher = project.atelier.languageServers.status().find((server) => server.id === 'crasher')
      expect(crasher).toMatchObject({ state: 'failed', error: expect.stringMatching(/exited with code 3/) })
      expect(crasher?.log.filter((line) => line.includes(': starting ')).length).toBe(2)
    },
    SERVER_WAIT_MS,
  )

  it(
    'says the diagnostics are pending when a server hangs past the budget, and blocks nothing',
    async () => {
      const result = await project.run('write_file', { path: 'b.hang', content: 'x\n' })
      expect(result.isError).toBe(false)
      expect(result.content).toMatch(/Diagnostics for b\.hang are pending/)
      const next = await project.run('read_file', { path: 'notes.txt' })
      expect(next.isError).toBe(false)
    },
    SERVER_WAIT_MS,
  )

  it(
    "delivers diagnostics that outlasted the budget with the chat's next result",
    async () => {
      const written = await project.run('write_file', { path: 'c.slow', content: 'fine\nbad\n' })
      expect(written.content).toMatch(/Diagnostics for c\.slow are pending/)
      let next = ''
      await eventually(
        () => next.includes('c.slow:2:1 error This line is bad. (slow)'),
        30_000,
        async () => {
          next = (await project.run('read_file', { path: 'notes.txt' })).content
        },
      )
      expect(next).toMatch(/new pending problem in c\.slow/)
    },
    SERVER_WAIT_MS,
  )

  it(
    'ends the servers of a folder once no chat is bound to it, and a server once it is switched off',
    async () => {
      await eventually(() => descendantProcesses((args) => args.includes(MARKER)).length > 0)
      project.atelier.chats.configure({ id: 'code', workingDir: null })
      await eventually(() => descendantProcesses((args) => args.includes(MARKER)).length === 0)
      project.atelier.chats.configure({ id: 'code', workingDir: project.project })
      // Started again by the next edit, then switched off in the settings: it ends too.
      await project.run('write_file', { path: 'b.hang', content: 'y\n' })
      await eventually(() => descendantProcesses((args) => args.includes(MARKER)).length > 0)
      const { atelier } = project
      const settings = atelier.preferences.get().codeIntelligence
      atelier.preferences.update({ codeIntelligence: { ...settings, disabled: ['hanger'] } })
      await eventually(() => descendantProcesses((args) => args.includes(MARKER)).length === 0)
      atelier.preferences.update({ codeIntelligence: settings })
    },
    SERVER_WAIT_MS,
  )

  it(
    'shows a configured command that does not exist as missing, fails its test clearly, and offers no code tool for it',
    async () => {
      const { atelier } = project
      const nowhere = atelier.languageServers.status().find((server) => server.id === 'nowhere')
      expect(nowhere).toMatchObject({
        state: 'missing',
        installHint: expect.stringMatching(/`atelier-no-such-language-server` was not found on PATH/),
      })
      const test = await atelier.dispatch('lsp.test', { id: 'nowhere' })
      expect(test).toEqual({
        ok: true,
        value: { ok: false, error: expect.stringMatching(/was not found on PATH/) },
      })
      const offeredIn = async (files: Record<string, string>) => {
        const folder = tempDir()
        writeTree(folder, files)
        return (await atelier.projection.projection(atelier.profiles.forChat(null), 'ask', folder)).offered
      }
      const zz = await offeredIn({ 'only.zz': 'zz\n' })
      for (const tool of CODE_TOOLS) expect(zz).not.toContain(tool)
      expect(zz).toContain('read_file')
      const typescript = await offeredIn({ 'src/a.ts': 'export {}\n' })
      for (const tool of CODE_TOOLS) expect(typescript).toContain(tool)
    },
    SERVER_WAIT_MS,
  )
})
