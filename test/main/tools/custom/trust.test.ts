import { existsSync, readFileSync, symlinkSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { LOCAL_USER } from '../../../../src-main/app/create-atelier'
import { useAgentFixture } from '../../../support/agent-harness'
import {
  descendantProcesses,
  fileOf,
  filesOf,
  toolSource,
  useCustomToolApps,
  waitFor,
  writeFile,
} from '../../../support/custom-tools'
import { useTempDirs } from '../../../support/temp-dir'
import { toolResults } from '../../../support/turn-events'

/** The tool names the model was offered in the fake's last request. */
function offeredIn(body: { tools?: { function: { name: string } }[] }): string[] {
  return (body.tools ?? []).map((tool) => tool.function.name)
}

describe('project tool folders and trust', { timeout: 60_000 }, () => {
  const fixture = useAgentFixture()
  const tempDir = useTempDirs()

  it("does not run an untrusted project's tools, says they wait, and offers them once the folder is trusted", async () => {
    const { atelier, fake, project, chat, run } = await fixture()
    const marker = join(project, 'project-tool-ran')
    const module = writeFile(
      join(project, '.atelier', 'tools', 'project-tool.ts'),
      toolSource('project_tool', {
        prelude: `require('node:fs').writeFileSync(${JSON.stringify(marker)}, 'loaded')`,
      }),
    )

    const before = atelier.customTools.list(project)
    expect(before.trustNeeded).toEqual({ folder: project, files: [module], changedSinceTrusted: false })
    expect(before.folders).toMatchObject([
      {
        path: join(project, '.atelier', 'tools'),
        origin: 'project',
        project,
        trusted: false,
        running: false,
      },
    ])
    expect(fileOf(before, module)).toMatchObject({ status: 'untrusted', tools: [] })
    fake.enqueue({ text: 'Nothing to run.' })
    await run('What can you do?')
    expect(offeredIn(fake.requestsOf('openai-chat')[0]?.body)).not.toContain('project_tool')
    expect(atelier.tools.registry.get('project_tool')).toBeUndefined()
    // Opening the folder ran none of its code.
    expect(existsSync(marker)).toBe(false)

    expect(atelier.customTools.trust(project).trusted).toEqual([project])
    const after = await atelier.customTools.load(project)
    expect(after.trustNeeded).toBeNull()
    expect(after.trustedFolders).toEqual([project])
    expect(fileOf(after, module)).toMatchObject({ status: 'loaded', tools: [{ name: 'project_tool' }] })
    fake.enqueue({ toolCalls: [{ id: 'p', name: 'project_tool', arguments: '{}' }] }, { text: 'Done.' })
    const { events } = await run('Run the project tool')
    expect(offeredIn(fake.requestsOf('openai-chat')[1]?.body)).toContain('project_tool')
    expect(toolResults(events)).toContainEqual(
      expect.objectContaining({ id: 'p', isError: false, content: 'project_tool ran' }),
    )
    expect(existsSync(marker)).toBe(true)

    // A chat in another folder is not offered this project's tools.
    const elsewhere = atelier.chats.configure({
      id: atelier.chats.create({}).id,
      workingDir: tempDir(),
      mode: 'agent',
      provider: chat.provider,
    })
    const capabilities = await atelier.projection.capabilities({ id: elsewhere.id })
    expect(capabilities.tools.map((tool) => tool.name)).not.toContain('project_tool')
    const own = await atelier.projection.capabilities({ id: chat.id })
    expect(own.tools.find((tool) => tool.name === 'project_tool')).toMatchObject({ module })

    // Untrusting ends its host and takes its tools away.
    await atelier.customTools.untrust(project)
    expect(atelier.tools.registry.get('project_tool')).toBeUndefined()
    expect(fileOf(atelier.customTools.list(project), module).status).toBe('untrusted')
  })
})

describe('untrusting a folder', { timeout: 60_000 }, () => {
  const freshApp = useCustomToolApps()

  it("while a call of its tools waits for the person's approval: the approved call does not run its code", async () => {
    const app = freshApp()
    const loads = join(app.home, 'loads')
    writeFile(
      join(app.project, '.atelier', 'tools', 'project-tool.ts'),
      toolSource('project_tool', {
        prelude: `require('node:fs').appendFileSync(${JSON.stringify(loads)}, 'loaded\\n')`,
      }),
    )
    app.atelier.customTools.trust(app.project)
    await app.list()
    expect(readFileSync(loads, 'utf8')).toBe('loaded\n')

    let asked = false
    let approve: () => void = () => {}
    const approved = new Promise<undefined>((resolve) => {
      approve = () => resolve(undefined)
    })
    // A before-tool hook stands in for the person taking their time: it waits as an approval does.
    const unhook = app.atelier.tools.executor.addBeforeToolHook(() => {
      asked = true
      return approved
    })
    const waiting = app.call('project_tool', {})
    await waitFor(() => asked, 'the approval card')
    await app.atelier.customTools.untrust(app.project)
    approve()

    const result = await waiting
    unhook()
    expect(result).toMatchObject({ isError: true, errorType: 'execution_failed' })
    expect(result.content).toMatch(/reloaded or closed/)
    expect(readFileSync(loads, 'utf8')).toBe('loaded\n')
    expect(descendantProcesses((args) => args.includes('tools/custom/host.ts'))).toEqual([])
  })
})

describe('two trusted projects', { timeout: 60_000 }, () => {
  const tempDir = useTempDirs()
  const freshApp = useCustomToolApps()

  it('with a tool of the same name each run their own, whichever was used first', async () => {
    const app = freshApp()
    const projects = [app.project, tempDir()]
    for (const [index, project] of projects.entries()) {
      writeFile(
        join(project, '.atelier', 'tools', 'deploy.ts'),
        toolSource('deploy', { text: `deploy ${index}` }),
      )
      app.atelier.customTools.trust(project)
    }
    const deployIn = async (project: string) =>
      (await app.call('deploy', {}, { workingDirectory: project })).content

    expect(await deployIn(projects[0] as string)).toBe('deploy 0')
    expect(await deployIn(projects[1] as string)).toBe('deploy 1')
    expect(
      fileOf(await app.list(projects[1]), join(projects[1] as string, '.atelier', 'tools', 'deploy.ts')),
    ).toMatchObject({ status: 'loaded' })
    expect(await deployIn(projects[0] as string)).toBe('deploy 0')
  })
})

describe("a name held by the person's own folder", { timeout: 60_000 }, () => {
  const freshApp = useCustomToolApps()

  it("goes to the project's tool once the person's own no longer has it", async () => {
    const app = freshApp()
    const own = writeFile(join(app.userTools, 'mine.ts'), toolSource('shared_name', { text: "the person's" }))
    const theirs = writeFile(
      join(app.project, '.atelier', 'tools', 'theirs.ts'),
      toolSource('shared_name', { text: "the project's" }),
    )
    app.atelier.customTools.trust(app.project)
    expect(fileOf(await app.list(), theirs)).toMatchObject({
      status: 'conflict',
      conflicts: [{ name: 'shared_name', heldBy: own }],
    })
    expect((await app.call('shared_name', {})).content).toBe("the person's")

    writeFile(own, toolSource('renamed'))
    expect((await app.call('shared_name', {})).content).toBe("the project's")
    expect(fileOf(await app.list(), theirs)).toMatchObject({
      status: 'loaded',
      tools: [{ name: 'shared_name' }],
    })
  })
})

describe('configured tool paths', { timeout: 60_000 }, () => {
  const freshApp = useCustomToolApps()

  it('expands ~, resolves relative paths against the project, and a path inside the project waits for its trust', async () => {
    const app = freshApp()
    const { atelier, home, project } = app
    const mine = writeFile(join(home, 'my-tools', 'mine.ts'), toolSource('mine'))
    const relative = writeFile(join(project, 'rel-tools', 'rel.ts'), toolSource('relative_tool'))
    const single = writeFile(join(home, 'loose', 'single.ts'), toolSource('single'))
    const sibling = writeFile(join(home, 'loose', 'sibling.ts'), toolSource('sibling'))
    atelier.preferences.update({ customToolPaths: ['~/my-tools', 'rel-tools', single] })

    const info = await app.list(project)
    expect(info.configuredPaths).toEqual(['~/my-tools', 'rel-tools', single])
    expect(info.folders).toMatchObject([
      { path: join(home, 'my-tools'), origin: 'configured', trusted: true },
      { path: join(project, 'rel-tools'), origin: 'configured', project, trusted: false },
      { path: join(home, 'loose'), origin: 'configured', trusted: true },
    ])
    expect(fileOf(info, mine)).toMatchObject({ status: 'loaded', tools: [{ name: 'mine' }] })
    expect(fileOf(info, single)).toMatchObject({ status: 'loaded', tools: [{ name: 'single' }] })
    // A file set on its own loads alone, not the folder it sits in.
    expect(filesOf(info).has(sibling)).toBe(false)
    expect(fileOf(info, relative).status).toBe('untrusted')
    expect(info.trustNeeded).toEqual({ folder: project, files: [relative], changedSinceTrusted: false })
    expect((await app.call('mine', {})).content).toBe('mine ran')

    atelier.customTools.trust(project)
    const trusted = await app.list(project)
    expect(fileOf(trusted, relative)).toMatchObject({ status: 'loaded', tools: [{ name: 'relative_tool' }] })
    expect((await app.call('relative_tool', {})).content).toBe('relative_tool ran')
  })

  it('a file set on its own inside a tool folder leaves the rest of that folder loading', async () => {
    const app = freshApp()
    const one = writeFile(join(app.userTools, 'one.ts'), toolSource('one'))
    const two = writeFile(join(app.userTools, 'two.ts'), toolSource('two'))
    const folder = writeFile(join(app.home, 'set', 'three.ts'), toolSource('three'))
    const four = writeFile(join(app.home, 'set', 'four.ts'), toolSource('four'))
    app.atelier.preferences.update({ customToolPaths: ['~/.atelier/tools/one.ts', four, '~/set'] })

    const info = await app.list(null)
    for (const [path, name] of [
      [one, 'one'],
      [two, 'two'],
      [folder, 'three'],
      [four, 'four'],
    ] as const) {
      expect(fileOf(info, path)).toMatchObject({ status: 'loaded', tools: [{ name }] })
    }
  })
})

describe('trust per content', { timeout: 60_000 }, () => {
  const freshApp = useCustomToolApps()
  const tempDir = useTempDirs()

  it('holds back a module added after the folder was trusted (a git pull) until the person trusts it again', async () => {
    const app = freshApp()
    const tools = join(app.project, '.atelier', 'tools')
    const trusted = writeFile(join(tools, 'trusted.ts'), toolSource('trusted_tool'))
    app.atelier.customTools.trust(app.project)
    expect((await app.call('trusted_tool', {})).content).toBe('trusted_tool ran')

    const marker = join(app.home, 'pulled-ran')
    const pulled = writeFile(
      join(tools, 'pulled.ts'),
      toolSource('pulled_tool', {
        prelude: `require('node:fs').writeFileSync(${JSON.stringify(marker)}, 'ran')`,
      }),
    )
    const info = await app.list()
    expect(fileOf(info, pulled)).toMatchObject({ status: 'changed', tools: [] })
    expect(fileOf(info, trusted)).toMatchObject({ status: 'loaded' })
    expect(info.trustNeeded).toEqual({ folder: app.project, files: [pulled], changedSinceTrusted: true })
    expect(await app.call('pulled_tool', {})).toMatchObject({ isError: true, errorType: 'unknown_tool' })
    expect((await app.call('trusted_tool', {})).content).toBe('trusted_tool ran')
    expect(existsSync(marker)).toBe(false)

    // Trusting the folder again confirms the module as it is now.
    app.atelier.customTools.trust(app.project)
    expect((await app.call('pulled_tool', {})).content).toBe('pulled_tool ran')
    expect(existsSync(marker)).toBe(true)
    expect((await app.list()).trustNeeded).toBeNull()
  })

  it('holds back a trusted module once edited, and a folder module once a file in its folder is', async () => {
    const app = freshApp()
    const tools = join(app.project, '.atelier', 'tools')
    const single = writeFile(join(tools, 'single.ts'), toolSource('single_tool'))
    const index = writeFile(
      join(tools, 'bundle', 'index.ts'),
      "import { text } from './text'\nexport default (api) => ({ name: 'bundle_tool', label: 'Bundle', description: 'Bundle', parameters: api.typebox.Type.Object({}), execute: () => ({ content: [{ type: 'text', text }] }) })\n",
    )
    const helper = writeFile(join(tools, 'bundle', 'text.ts'), "export const text = 'as trusted'\n")
    app.atelier.customTools.trust(app.project)
    expect((await app.call('single_tool', {})).content).toBe('single_tool ran')
    expect((await app.call('bundle_tool', {})).content).toBe('as trusted')

    writeFile(single, toolSource('single_tool', { text: 'edited since' }))
    writeFile(helper, "export const text = 'edited since'\n")
    const info = await app.list()
    expect(fileOf(info, single).status).toBe('changed')
    expect(fileOf(info, index).status).toBe('changed')
    expect(await app.call('single_tool', {})).toMatchObject({ isError: true, errorType: 'unknown_tool' })
    expect(await app.call('bundle_tool', {})).toMatchObject({ isError: true, errorType: 'unknown_tool' })

    app.atelier.customTools.trust(app.project)
    expect((await app.call('single_tool', {})).content).toBe('edited since')
    expect((await app.call('bundle_tool', {})).content).toBe('edited since')
  })

  it('does not let a host that starts again after a crash load a module edited since it was trusted', async () => {
    const app = freshApp()
    const module = writeFile(
      join(app.project, '.atelier', 'tools', 'crashy.ts'),
      "export default (api) => ({ name: 'crashy', label: 'Crashy', description: 'Ends its host', parameters: api.typebox.Type.Object({}), execute: () => process.exit(1) })\n",
    )
    app.atelier.customTools.trust(app.project)
    expect(await app.call('crashy', {})).toMatchObject({
      isError: true,
      content: expect.stringMatching(/host stopped/i),
    })

    // Edited while no turn looked (no prepare): the registered tool's next call starts the host again.
    const marker = join(app.home, 'edited-ran')
    writeFile(
      module,
      toolSource('crashy', { prelude: `require('node:fs').writeFileSync(${JSON.stringify(marker)}, 'ran')` }),
    )
    const result = await app.atelier.tools.executor.execute(
      { name: 'crashy', arguments: {} },
      { user: LOCAL_USER, workingDirectory: app.project, mode: 'agent', restrict: true },
    )
    expect(result).toMatchObject({ isError: true })
    expect(existsSync(marker)).toBe(false)
  })

  it('is one trust for the folder and the same folder reached through a symlink, either way', async () => {
    const app = freshApp()
    const module = writeFile(join(app.project, '.atelier', 'tools', 'linked.ts'), toolSource('linked_tool'))
    const link = join(tempDir(), 'project-link')
    symlinkSync(app.project, link)

    expect(app.atelier.customTools.trust(link)).toMatchObject({ folder: app.project, trusted: [app.project] })
    expect(fileOf(await app.list(app.project), module).status).toBe('loaded')
    const throughLink = await app.list(link)
    expect(fileOf(throughLink, join(link, '.atelier', 'tools', 'linked.ts')).status).toBe('loaded')
    expect(throughLink.trustNeeded).toBeNull()

    // A module added since is held back whichever path reaches it.
    const added = writeFile(join(app.project, '.atelier', 'tools', 'added.ts'), toolSource('added_tool'))
    expect(fileOf(await app.list(link), join(link, '.atelier', 'tools', 'added.ts')).status).toBe('changed')
    expect(fileOf(await app.list(app.project), added).status).toBe('changed')

    await app.atelier.customTools.untrust(app.project)
    expect(fileOf(await app.list(link), join(link, '.atelier', 'tools', 'linked.ts')).status).toBe(
      'untrusted',
    )
  })

  it("keeps the person's own ~/.atelier/tools trusted as a whole: a module added there loads without asking", async () => {
    const app = freshApp()
    writeFile(join(app.userTools, 'first.ts'), toolSource('first_tool'))
    expect((await app.call('first_tool', {})).content).toBe('first_tool ran')
    const added = writeFile(join(app.userTools, 'added.ts'), toolSource('added_own'))
    expect(fileOf(await app.list(), added)).toMatchObject({
      status: 'loaded',
      tools: [{ name: 'added_own' }],
    })
    expect((await app.call('added_own', {})).content).toBe('added_own ran')
  })
})
