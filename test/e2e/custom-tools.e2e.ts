import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import type { Atelier } from '../../src-main/app/create-atelier'
import type { ScriptedResponse } from '../support/fake-provider'
import {
  conversation,
  conversationText,
  openToolCall,
  ROOT,
  screenshot,
  send,
  settingsSection,
  toolCard,
  turnOver,
  useChatApp,
} from './support'

const REPO_STATS = join(ROOT, 'examples', 'custom-tools', 'repo-stats.ts')

/** A tool folder with these files in it (made as needed). */
function writeTools(folder: string, files: Record<string, string>): void {
  mkdirSync(folder, { recursive: true })
  for (const [name, text] of Object.entries(files)) writeFileSync(join(folder, name), text)
}

const call = (name: string, args: Record<string, unknown> = {}): ScriptedResponse => ({
  toolCalls: [{ name, arguments: JSON.stringify(args) }],
})

/** Settles on the next `customTools.changed` the app announces. */
function nextChange(atelier: Atelier): Promise<void> {
  return new Promise((resolve) => {
    const unsubscribe = atelier.events.subscribe((event) => {
      if (event !== 'customTools.changed') return
      unsubscribe()
      resolve()
    })
  })
}

/** A tool module that answers `text`, and records each lifecycle event in `record`. */
function versionTool(version: string, record: string): string {
  return `import { appendFileSync } from 'node:fs'
import type { CustomToolFactory } from 'atelier'

const factory: CustomToolFactory = (api) => ({
  name: 'tool_version',
  label: 'Tool version',
  description: 'Says which version of the module runs',
  kind: 'read',
  parameters: api.typebox.Type.Object({}),
  execute: async () => ({ content: [{ type: 'text', text: 'running ${version}' }] }),
  onSession(event) {
    appendFileSync(${JSON.stringify(record)}, '${version} ' + event.reason + '\\n')
  },
})
export default factory
`
}

/**
 * Custom tools in Chromium against the web host: real tool modules written into a temp home's
 * `~/.atelier/tools` and temp projects' `.atelier/tools`, loaded by the real host process; the fake
 * provider calls them, and the test reads what a person sees.
 */
describe('custom tools in the app', () => {
  const { open, openPage, tempDir } = useChatApp()

  const approvalCard = (page: Page, tool: string) =>
    conversation(page).getByRole('group', { name: `Approval for ${tool}`, exact: true })

  it("runs the spec's repo_stats: the card shows its partial 'Scanning files...' while it runs, then the count", async () => {
    const repo = tempDir()
    writeTools(join(repo, 'src'), {
      'a.ts': 'export const a = 1\n',
      'b.ts': 'export const b = 2\n',
      'c.ts': 'export const c = 3\n',
      'notes.md': '# not TypeScript\n',
    })
    writeFileSync(join(repo, 'loose.ts'), 'export {}\n')
    execFileSync('git', ['init', '-q'], { cwd: repo })
    execFileSync('git', ['add', 'src'], { cwd: repo })
    // The example as written, held a moment after its partial so a person (and this test) can see it.
    const example = readFileSync(REPO_STATS, 'utf8')
    const slowed = example.replace(
      "details: { phase: 'scan' },\n    })\n",
      "details: { phase: 'scan' },\n    })\n    await new Promise((resolve) => setTimeout(resolve, 1500))\n",
    )
    expect(slowed).not.toBe(example)
    const home = tempDir()
    writeTools(join(home, '.atelier', 'tools'), { 'repo-stats.ts': slowed })

    const { page, fake } = await open({ folder: repo, home, approvalMode: 'full-auto', colorScheme: 'dark' })
    fake.enqueue(call('repo_stats', { glob: 'src/*.ts' }), { text: 'Three TypeScript files are tracked.' })
    await send(page, 'How many TypeScript files does git track?')

    const card = await openToolCall(page, 'repo_stats')
    const partial = card.getByRole('status', { name: 'Partial result of repo_stats' })
    await partial.getByText('Scanning files...', { exact: true }).waitFor()
    expect(await card.getByText('Running…').count()).toBe(1)
    await screenshot(page, 'custom-tool-partial-dark')

    await conversationText(page, (text) => text.includes('Three TypeScript files are tracked.'))
    await turnOver(page)
    expect(await partial.count()).toBe(0)
    // The result as the tool's renderResult made it: collapsed, the count; expanded, the files.
    const result = card.getByRole('region', { name: 'Result of repo_stats' })
    expect(await result.locator('.markdown').textContent()).toBe('3 tracked files')
    expect(await result.locator('strong').textContent()).toBe('3')
    await result.getByRole('button', { name: 'Expand the result of repo_stats' }).click()
    await result.getByRole('listitem').first().waitFor()
    expect(await result.getByRole('listitem').allTextContents()).toEqual(['src/a.ts', 'src/b.ts', 'src/c.ts'])
    expect(
      await result
        .getByRole('button', { name: 'Collapse the result of repo_stats' })
        .getAttribute('aria-expanded'),
    ).toBe('true')
    await screenshot(page, 'custom-tool-result-dark')

    // What the model read is the tool's text, not the card's Markdown.
    const followUp = fake.requestsOf('openai-chat').at(-1)?.body
    const toolMessage = followUp.messages.findLast((message: { role: string }) => message.role === 'tool')
    expect(JSON.stringify(toolMessage.content)).toContain('Found 3 files')
  })

  it('reloads an edited tool file in the running app: the next turn runs the new version', async () => {
    const home = tempDir()
    const record = join(tempDir(), 'sessions.log')
    const tools = join(home, '.atelier', 'tools')
    writeTools(tools, { 'version.ts': versionTool('v1', record) })
    const { page, fake, app } = await open({ home, approvalMode: 'full-auto' })

    fake.enqueue(call('tool_version'), { text: 'First answer.' })
    await send(page, 'Which version runs?')
    await conversationText(page, (text) => text.includes('First answer.'))
    await turnOver(page)
    const first = toolCard(page, 'tool_version').first()
    expect(await first.locator('.tool-result-content').textContent()).toBe('running v1')

    // Edited while the app runs; its watcher marks the folder changed.
    const changed = nextChange(app.atelier)
    writeTools(tools, { 'version.ts': versionTool('v2', record) })
    await changed

    fake.enqueue(call('tool_version'), { text: 'Second answer.' })
    await send(page, 'And now?')
    await conversationText(page, (text) => text.includes('Second answer.'))
    await turnOver(page)
    const cards = toolCard(page, 'tool_version')
    expect(await cards.count()).toBe(2)
    expect(await cards.nth(1).locator('.tool-result-content').textContent()).toBe('running v2')
    expect(await cards.nth(0).locator('.tool-result-content').textContent()).toBe('running v1')
    // The old module was told it ends before the new one started.
    const events = () => readFileSync(record, 'utf8').trim().split('\n')
    await expect
      .poll(() => events().filter((line) => / (start|shutdown)$/.test(line)))
      .toEqual(['v1 start', 'v1 shutdown', 'v2 start'])
    // The first turn began as its folder's host started: its first events waited for the modules.
    expect(events().slice(0, 4)).toEqual(['v1 start', 'v1 new', 'v1 turn_start', 'v1 message'])
    expect(events().at(-1)).toBe('v2 turn_end')
  })

  it("keeps an untrusted project's tools from running until the person trusts the folder", async () => {
    const project = tempDir()
    const ran = join(tempDir(), 'ran.txt')
    writeTools(join(project, '.atelier', 'tools'), {
      'echo.ts': `import { appendFileSync } from 'node:fs'
export default (api) => ({
  name: 'project_echo',
  label: 'Project echo',
  description: 'Says the text back',
  kind: 'read',
  parameters: api.typebox.Type.Object({ text: api.typebox.Type.String() }),
  execute: async (id, params) => {
    appendFileSync(${JSON.stringify(ran)}, params.text + '\\n')
    return { content: [{ type: 'text', text: 'echo: ' + params.text }] }
  },
})
`,
    })
    const { page, fake } = await open({ folder: project, approvalMode: 'full-auto' })

    const notice = page.getByRole('region', { name: 'Custom tools in this folder' })
    await notice.waitFor()
    expect(await notice.textContent()).toContain(
      'This folder has 1 custom tool file (.atelier/tools/echo.ts). They run only if you trust the folder.',
    )
    await screenshot(page, 'custom-tools-trust-prompt-light')

    // Not offered: the capabilities inspector lists every tool the next turn sends, and not this one.
    const toolNames = async () => {
      await page.getByRole('button', { name: 'Capabilities', exact: true }).click()
      const dialog = page.getByRole('dialog', { name: 'Capabilities' })
      const table = dialog.getByRole('table', { name: 'Tools' })
      await table.waitFor()
      const names = await table.locator('tbody th').allTextContents()
      await dialog.getByRole('button', { name: 'Close', exact: true }).click()
      await dialog.waitFor({ state: 'detached' })
      return names
    }
    const before = await toolNames()
    expect(before).toContain('read_file')
    expect(before).not.toContain('project_echo')

    // A model that calls it anyway gets an error, and the module never runs.
    fake.enqueue(call('project_echo', { text: 'early' }), { text: 'It is not available.' })
    await send(page, 'Echo early')
    await conversationText(page, (text) => text.includes('It is not available.'))
    await turnOver(page)
    const refused = toolCard(page, 'project_echo').first()
    expect(await refused.getByText('Error', { exact: true }).count()).toBe(1)
    expect(await refused.locator('.tool-result-content').textContent()).toContain(
      'Unknown tool "project_echo"',
    )
    expect(existsSync(ran)).toBe(false)

    await notice.getByRole('button', { name: 'Trust folder', exact: true }).click()
    await notice.waitFor({ state: 'detached' })
    expect(await toolNames()).toContain('project_echo')

    fake.enqueue(call('project_echo', { text: 'hello' }), { text: 'Echoed.' })
    await send(page, 'Echo hello')
    await conversationText(page, (text) => text.includes('Echoed.'))
    await turnOver(page)
    const echoed = toolCard(page, 'project_echo').nth(1)
    expect(await echoed.getByText('Done', { exact: true }).count()).toBe(1)
    expect(await echoed.locator('.tool-result-content').textContent()).toBe('echo: hello')
    expect(readFileSync(ran, 'utf8')).toBe('hello\n')
    // The notice stays away once the folder is trusted.
    expect(await notice.count()).toBe(0)

    // Settings → Custom tools shows the current chat's project folder, trusted; trust can be taken back.
    const panel = await settingsSection(page, 'Custom tools')
    const folder = panel.getByRole('region', { name: join(project, '.atelier', 'tools'), exact: true })
    await folder.getByText('Trusted', { exact: true }).waitFor()
    expect(await folder.getByText('Project', { exact: true }).count()).toBe(1)
    await folder.getByRole('button', { name: 'Stop trusting', exact: true }).click()
    await folder.getByText('Not trusted', { exact: true }).waitFor()
    expect(await folder.getByText('Untrusted', { exact: true }).count()).toBe(1)
    expect(await folder.textContent()).toContain('not run until you trust the project folder')
    expect(await folder.getByRole('button', { name: 'Trust this folder', exact: true }).count()).toBe(1)
    await page.getByRole('button', { name: 'Close settings', exact: true }).click()
    await notice.waitFor()
  })

  it('holds back a module added to a trusted project until the person trusts the change; a folder passes the variables named for it', async () => {
    const home = tempDir()
    const project = tempDir()
    const tools = join(project, '.atelier', 'tools')
    const echo = (name: string) => `export default (api) => ({
  name: '${name}',
  label: '${name}',
  description: 'Says its name',
  parameters: api.typebox.Type.Object({}),
  execute: async () => ({ content: [{ type: 'text', text: '${name} ran' }] }),
})
`
    writeTools(tools, { 'first.ts': echo('first_tool') })
    const { page, app } = await open({ folder: project, home, approvalMode: 'full-auto' })
    app.atelier.customTools.trust(project)
    const notice = page.getByRole('region', { name: 'Custom tools in this folder' })

    // A git pull brings a module the person never saw: it waits, said in the chat and in Settings.
    writeTools(tools, { 'pulled.ts': echo('pulled_tool') })
    const panel = await settingsSection(page, 'Custom tools')
    const folder = panel.getByRole('region', { name: tools, exact: true })
    await folder.getByText('Changed since trusted', { exact: true }).waitFor()
    expect(await folder.textContent()).toContain('added or edited since you trusted the project folder')
    expect(await folder.getByText('Loaded', { exact: true }).count()).toBe(1)
    await screenshot(page, 'custom-tools-changed-since-trusted-light')
    await page.getByRole('button', { name: 'Close settings', exact: true }).click()
    await notice.waitFor()
    expect(await notice.textContent()).toContain(
      '1 custom tool file changed since you trusted this folder (.atelier/tools/pulled.ts). It runs only once you trust the changes.',
    )
    await notice.getByRole('button', { name: 'Trust the changes', exact: true }).click()
    await notice.waitFor({ state: 'detached' })
    const pulled = app.atelier.customTools
      .list(project)
      .folders[0]?.files.find((file) => file.path.endsWith('pulled.ts'))
    expect(pulled?.status).not.toBe('changed')

    // The variables a folder's modules get: the allowlist, and those the person names.
    const settings = await settingsSection(page, 'Custom tools')
    const own = settings.getByRole('region', { name: tools, exact: true })
    const variables = own.getByRole('group', { name: 'Pass these variables' })
    await variables.getByRole('button', { name: 'Add to Pass these variables' }).click()
    await variables.getByRole('textbox', { name: 'Pass these variables 1' }).fill('JAVA_*')
    await own.getByRole('button', { name: 'Save variables', exact: true }).click()
    await expect.poll(() => app.atelier.customTools.environmentOf(tools)).toEqual(['JAVA_*'])
    await expect
      .poll(() => own.getByRole('button', { name: 'Save variables', exact: true }).isDisabled())
      .toBe(true)
  })

  it('Settings → Custom tools lists a loaded tool, a syntax error with its file:line, metadata, logs and configured paths', async () => {
    const home = tempDir()
    const tools = join(home, '.atelier', 'tools')
    writeTools(tools, {
      'good.ts': `import type { CustomToolFactory } from 'atelier'
const factory: CustomToolFactory = (api) => {
  api.logger.info('good tool ready')
  return {
    name: 'good_tool',
    label: 'Good tool',
    description: 'Answers good',
    kind: 'read',
    parameters: api.typebox.Type.Object({}),
    execute: async () => ({ content: [{ type: 'text', text: 'good' }] }),
  }
}
export default factory
`,
      'broken.ts': 'export default (api) => ({\n  name: "broken",\n  label: "Broken" +,\n})\n',
      'README.md': '# My tools\n',
    })
    const extra = tempDir()
    writeTools(extra, {
      'extra.ts': `export default (api) => ({
  name: 'extra_tool',
  label: 'Extra tool',
  description: 'Comes from a configured path',
  parameters: api.typebox.Type.Object({}),
  execute: async () => ({ content: [{ type: 'text', text: 'extra' }] }),
})
`,
    })
    const { page } = await open({ home })

    const panel = await settingsSection(page, 'Custom tools')
    const folder = panel.getByRole('region', { name: tools, exact: true })
    await folder.waitFor()
    expect(await folder.getByText('Your own', { exact: true }).count()).toBe(1)
    expect(await folder.locator('.mcp-status-label').textContent()).toBe('Running')
    const files = folder.getByRole('list', { name: `Files in ${tools}` })
    const file = (name: string) =>
      files.getByRole('listitem').filter({ has: page.getByText(name, { exact: true }) })

    const good = file('good.ts')
    expect(await good.getByText('Loaded', { exact: true }).count()).toBe(1)
    const goodTools = good.getByRole('list', { name: 'Tools of good.ts' })
    expect(await goodTools.textContent()).toContain('good_tool')
    expect(await goodTools.textContent()).toContain('Good tool')
    expect(await goodTools.textContent()).toContain('Answers good')

    const broken = file('broken.ts')
    expect(await broken.getByText('Failed', { exact: true }).count()).toBe(1)
    expect(await broken.locator('.custom-file-place').textContent()).toMatch(/^broken\.ts:3:\d+$/)
    expect(await broken.textContent()).toContain('Unexpected token')

    const readme = file('README.md')
    expect(await readme.textContent()).toContain('metadata, never run')
    expect(await readme.getByRole('button', { name: 'Log of README.md' }).count()).toBe(0)
    await screenshot(page, 'custom-tools-settings-light')

    // What the module wrote to its logger.
    await good.getByRole('button', { name: 'Log of good.ts', exact: true }).click()
    const log = page.getByRole('dialog', { name: 'Log of good.ts' })
    await expect.poll(() => log.getByRole('log').textContent()).toContain('good tool ready')
    await log.getByRole('button', { name: 'Close', exact: true }).click()
    await log.waitFor({ state: 'detached' })

    // A configured path: saved, and its folder is listed, loaded.
    await panel.getByRole('button', { name: 'Add to Custom tool paths', exact: true }).click()
    await panel.getByRole('textbox', { name: 'Custom tool paths 1', exact: true }).fill(extra)
    await panel.getByRole('button', { name: 'Save tool paths', exact: true }).click()
    const configured = panel.getByRole('region', { name: extra, exact: true })
    await configured.waitFor()
    expect(await configured.getByText('Configured', { exact: true }).count()).toBe(1)
    await configured.getByText('extra_tool', { exact: true }).waitFor()
    expect(
      await page.evaluate(async () => (await window.atelier?.preferences.get())?.customToolPaths),
    ).toEqual([extra])

    // Reload starts the hosts again; what they load is the same.
    await panel.getByRole('button', { name: 'Reload', exact: true }).click()
    await panel.getByRole('status').getByText('Reloaded every tool folder.').waitFor()
    expect(await file('good.ts').getByText('Loaded', { exact: true }).count()).toBe(1)

    await page.emulateMedia({ colorScheme: 'dark' })
    await screenshot(page, 'custom-tools-settings-dark')
  })

  it('windows showing custom tools follow a change without listing each other forever', async () => {
    const home = tempDir()
    const tools = join(home, '.atelier', 'tools')
    writeTools(tools, { 'version.ts': versionTool('v1', join(tempDir(), 'log')) })
    const project = tempDir()
    writeTools(join(project, '.atelier', 'tools'), { 'x.ts': 'export default () => []\n' })
    const { page, app } = await open({ home, folder: project })
    // One window on Settings → Custom tools, another on the chat with its trust notice.
    const panel = await settingsSection(page, 'Custom tools')
    const { page: other } = await openPage(app)
    await other.getByRole('region', { name: 'Custom tools in this folder' }).waitFor()

    let changes = 0
    const unsubscribe = app.atelier.events.subscribe((event) => {
      if (event === 'customTools.changed') changes += 1
    })
    // A new file: the folder's watcher announces it, each window lists again (which loads it, and
    // announces that too)…
    writeTools(tools, { 'added.ts': 'export default () => []\n' })
    await panel.getByText('added.ts', { exact: true }).waitFor()
    await new Promise((resolve) => setTimeout(resolve, 2000))
    unsubscribe()
    // …and then they are quiet: windows that listed again on every announcement would ask each
    // other forever, dozens of times in these two seconds.
    expect(changes).toBeGreaterThan(0)
    expect(changes).toBeLessThanOrEqual(12)
  })

  it("a tool's pending action asks with Apply and Discard; Apply makes the change, Discard leaves it", async () => {
    const home = tempDir()
    const project = tempDir()
    const target = join(project, 'hello.txt')
    writeTools(join(home, '.atelier', 'tools'), {
      'write-hello.ts': `import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { CustomToolFactory } from 'atelier'

const factory: CustomToolFactory = (api) => ({
  name: 'write_hello',
  label: 'Write hello',
  description: 'Writes hello.txt once the person applies it',
  parameters: api.typebox.Type.Object({}),
  async execute(id, params, onUpdate, ctx) {
    const file = join(ctx.cwd, 'hello.txt')
    const applied = await api.pushPendingAction({
      label: 'Write hello.txt',
      detail: 'Creates hello.txt in the project folder.',
      preview: 'hello',
      apply: () => writeFileSync(file, 'hello'),
    })
    return { content: [{ type: 'text', text: applied ? 'applied: hello.txt written' : 'discarded: nothing written' }] }
  },
})
export default factory
`,
    })
    const { page, fake } = await open({ folder: project, home, approvalMode: 'full-auto' })

    fake.enqueue(call('write_hello'), { text: 'Wrote it.' })
    await send(page, 'Write hello')
    const card = approvalCard(page, 'write_hello').last()
    await card.getByRole('button', { name: 'Apply', exact: true }).waitFor()
    expect(await card.textContent()).toContain('Write hello.txt')
    expect(await card.textContent()).toContain('Creates hello.txt in the project folder.')
    expect(await card.locator('pre').textContent()).toBe('hello')
    // Only the two answers: no rules, no "always".
    expect(await card.getByRole('button').allTextContents()).toEqual(['Apply', 'Discard'])
    expect(existsSync(target)).toBe(false)
    await screenshot(page, 'custom-tool-pending-action-light')

    await card.getByRole('button', { name: 'Apply', exact: true }).click()
    await conversationText(page, (text) => text.includes('Wrote it.'))
    await turnOver(page)
    expect(readFileSync(target, 'utf8')).toBe('hello')
    await card.getByText('Applied', { exact: true }).waitFor()
    const applied = toolCard(page, 'write_hello').first()
    expect(await applied.locator('.tool-result-content').textContent()).toBe('applied: hello.txt written')

    // Discarded: nothing written, and the tool says so.
    rmSync(target)
    fake.enqueue(call('write_hello'), { text: 'Left it.' })
    await send(page, 'Write hello again')
    const second = approvalCard(page, 'write_hello').last()
    await second.getByRole('button', { name: 'Discard', exact: true }).click()
    await conversationText(page, (text) => text.includes('Left it.'))
    await turnOver(page)
    expect(existsSync(target)).toBe(false)
    await second.getByText('Discarded', { exact: true }).waitFor()
    expect(await toolCard(page, 'write_hello').nth(1).locator('.tool-result-content').textContent()).toBe(
      'discarded: nothing written',
    )
  })
})
