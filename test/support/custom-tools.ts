import { execFileSync } from 'node:child_process'
import { copyFileSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach } from 'vitest'
import {
  type Atelier,
  type AtelierOptions,
  createAtelier,
  LOCAL_USER,
} from '../../src-main/app/create-atelier'
import type { ToolCallScope, ToolExecutionResult } from '../../src-main/tools/executor'
import type { CustomToolFileInfo, CustomToolsInfo } from '../../src-shared/custom-tools'
import type { ToolProgress } from '../../src-shared/tools'

export { descendantProcesses } from './descendants'

export const ROOT = fileURLToPath(new URL('../../', import.meta.url))
export const REPO_STATS = join(ROOT, 'examples', 'custom-tools', 'repo-stats.ts')
/** Tool modules the custom tools tests copy into temp tool folders. */
export const CUSTOM_TOOL_FIXTURES = join(ROOT, 'test', 'fixtures', 'custom-tools')

/** Writes a file, creating its folders; returns its path. */
export function writeFile(path: string, content: string): string {
  mkdirSync(dirname(path), { recursive: true })
  writeFileSync(path, content)
  return path
}

/** Copies a module into a tool folder; returns where it now lies. */
export function copyTool(source: string, folder: string, name?: string): string {
  const target = join(folder, name ?? source.split('/').pop() ?? 'tool.ts')
  mkdirSync(folder, { recursive: true })
  copyFileSync(source, target)
  return target
}

/** A git repository with these files committed (tracked). */
export function gitRepo(root: string, files: Record<string, string>): void {
  for (const [path, content] of Object.entries(files)) writeFile(join(root, path), content)
  const git = (...args: string[]) => execFileSync('git', args, { cwd: root, stdio: 'ignore' })
  git('init', '-q')
  git('add', '.')
  git('-c', 'user.email=test@example.com', '-c', 'user.name=Test', 'commit', '-q', '-m', 'files')
}

/** Every file of every folder in a listing, by path. */
export function filesOf(info: CustomToolsInfo): Map<string, CustomToolFileInfo> {
  return new Map(info.folders.flatMap((folder) => folder.files.map((file) => [file.path, file] as const)))
}

export function fileOf(info: CustomToolsInfo, path: string): CustomToolFileInfo {
  const file = filesOf(info).get(path)
  if (!file) throw new Error(`${path} is not listed: ${JSON.stringify(info, null, 2)}`)
  return file
}

export async function waitFor(check: () => boolean, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
}

export interface CustomToolApp {
  atelier: Atelier
  /** The app's home: `~/.atelier/tools` and the others are looked for here. */
  home: string
  /** `~/.atelier/tools` of that home. */
  userTools: string
  /** A project folder (not a git repository unless a test makes it one). */
  project: string
  /** Runs a call through the executor, as `atelier tool NAME --cwd PROJECT` does (no turn, no gate). */
  call(
    name: string,
    args: unknown,
    options?: Partial<ToolCallScope> & { updates?: ToolProgress[] },
  ): Promise<ToolExecutionResult>
  /** What Settings → Custom tools shows for the project: it loads the folders on opening. */
  list(project?: string | null): Promise<CustomToolsInfo>
  close(): Promise<void>
}

/**
 * A real app on temp folders of its own (home, data, project), removed by `close`: tests of a file
 * may share one between `beforeAll` and `afterAll` where they do not couple.
 */
export function customToolApp(options: Partial<AtelierOptions> = {}): CustomToolApp {
  const made: string[] = []
  const temp = () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), 'atelier-custom-')))
    made.push(dir)
    return dir
  }
  const home = temp()
  const project = temp()
  const atelier = createAtelier({ dataDir: temp(), home, ...options })
  return {
    atelier,
    home,
    userTools: join(home, '.atelier', 'tools'),
    project,
    call: async (name, args, { updates, ...scope } = {}) => {
      await atelier.customTools.prepare(scope.workingDirectory ?? project)
      return atelier.tools.executor.execute(
        { name, arguments: args },
        {
          user: LOCAL_USER,
          workingDirectory: project,
          mode: 'agent',
          restrict: true,
          ...(updates && { onUpdate: (progress: ToolProgress) => updates.push(progress) }),
          ...scope,
        },
      )
    },
    list: (forProject = project) => atelier.customTools.load(forProject),
    close: async () => {
      await atelier.close()
      for (const dir of made) rmSync(dir, { recursive: true, force: true })
    },
  }
}

/** A fresh `customToolApp` per call, closed after the current test. */
export function useCustomToolApps(): (options?: Partial<AtelierOptions>) => CustomToolApp {
  const apps: CustomToolApp[] = []
  afterEach(async () => {
    for (const app of apps.splice(0)) await app.close()
  })
  return (options) => {
    const app = customToolApp(options)
    apps.push(app)
    return app
  }
}

/**
 * A module of one tool that answers `text`; `prelude` runs when the module loads (e.g. to leave a
 * marker), `extra` adds fields to the tool (hooks).
 */
export function toolSource(name: string, { text = `${name} ran`, prelude = '', extra = '' } = {}): string {
  return [
    prelude,
    'export default (api) => ({',
    `  name: ${JSON.stringify(name)},`,
    `  label: ${JSON.stringify(`The ${name} tool`)},`,
    `  description: ${JSON.stringify(`Does ${name}`)},`,
    '  parameters: api.typebox.Type.Object({}),',
    `  execute: () => ({ content: [{ type: 'text', text: ${JSON.stringify(text)} }] }),`,
    extra,
    '})',
    '',
  ].join('\n')
}

/** Module code that leaves a file at `marker` when it runs: a file that must never run holds it. */
export function markerCode(marker: string): string {
  return `require('node:fs').writeFileSync(${JSON.stringify(marker)}, 'it ran')\nexport default () => []\n`
}
