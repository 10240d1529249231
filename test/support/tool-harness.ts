import { mkdirSync, realpathSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { afterEach } from 'vitest'
import { type Atelier, createAtelier, LOCAL_USER } from '../../src-main/app/create-atelier'
import '../../src-main/tools/builtin'
import type { ToolCallScope } from '../../src-main/tools/executor'
import { DEFAULT_SANDBOX_SETTINGS } from '../../src-shared/sandbox'
import { useTempDirs } from './temp-dir'

/** Writes files (creating their folders) under `root`, e.g. `{ 'src/a.ts': 'export {}' }`. */
export function writeTree(root: string, files: Record<string, string | Buffer>): void {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true })
    writeFileSync(join(root, path), content)
  }
}

/** Commands run as they did before the sandbox: for tests of the policy alone, or of the bare runner. */
export function turnSandboxOff(atelier: Atelier): void {
  atelier.preferences.update({ sandbox: { ...DEFAULT_SANDBOX_SETTINGS, enabled: false } })
}

/**
 * No language servers: a test of something else that edits a .ts file would otherwise start a real
 * TypeScript server and wait for its diagnostics. The tests under test/main/lsp turn them on.
 */
export function turnCodeIntelligenceOff(atelier: Atelier): void {
  const { codeIntelligence } = atelier.preferences.get()
  atelier.preferences.update({ codeIntelligence: { ...codeIntelligence, enabled: false } })
}

/**
 * Real services on a real temp data folder, plus a real project folder bound to a real chat:
 * tool calls go through the executor exactly as a turn's would.
 */
export function useToolHarness() {
  const tempDir = useTempDirs()
  const opened: Atelier[] = []
  afterEach(() => {
    for (const atelier of opened.splice(0)) atelier.close()
  })
  return () => {
    const atelier = createAtelier({ dataDir: tempDir() })
    opened.push(atelier)
    turnCodeIntelligenceOff(atelier)
    const project = realpathSync(tempDir())
    const outside = realpathSync(tempDir())
    const chat = atelier.chats.ensure(`chat-${opened.length}`, { workingDir: project, mode: 'agent' })
    const scope: ToolCallScope = {
      chatId: chat.id,
      user: LOCAL_USER,
      workingDirectory: project,
      mode: 'agent',
      restrict: true,
    }
    const run = (name: string, args: unknown, overrides: Partial<ToolCallScope> = {}) =>
      atelier.tools.executor.execute({ name, arguments: args }, { ...scope, ...overrides })
    /** The parsed JSON result of a call that must succeed. */
    const ok = async <T = Record<string, unknown>>(
      name: string,
      args: unknown,
      overrides?: Partial<ToolCallScope>,
    ) => {
      const result = await run(name, args, overrides)
      if (result.isError) throw new Error(`${name} failed: ${result.errorType}: ${result.content}`)
      return JSON.parse(result.content) as T
    }
    const folder = (...parts: string[]) => {
      const path = join(project, ...parts)
      mkdirSync(path, { recursive: true })
      return path
    }
    return { atelier, project, outside, scope, run, ok, folder }
  }
}
