import { mkdtempSync, realpathSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll } from 'vitest'
import { type Atelier, createAtelier, LOCAL_USER } from '../../src-main/app/create-atelier'
import '../../src-main/tools/builtin'
import type { ToolCallScope } from '../../src-main/tools/executor'
import type { CodeIntelligenceSettings } from '../../src-shared/code-intelligence'
import { DEFAULT_CODE_INTELLIGENCE_SETTINGS } from '../../src-shared/code-intelligence'
import { DEFAULT_SANDBOX_SETTINGS } from '../../src-shared/sandbox'
import { writeTree } from './tool-harness'

/** How long a real server may take to start and answer on a loaded machine. */
export const SERVER_WAIT_MS = 60_000

/**
 * One Atelier and one project folder for a whole test file, so its language servers start once and
 * stay warm across the cases; closed (servers ended) after the file.
 */
/** This checkout, where the fixture servers live. */
const CHECKOUT = realpathSync(fileURLToPath(new URL('../../', import.meta.url)))

export function useCodeProject(
  files: Record<string, string>,
  settings: Partial<CodeIntelligenceSettings> = {},
) {
  const made: string[] = []
  const state = {} as {
    atelier: Atelier
    project: string
    scope: ToolCallScope
    run: (name: string, args: unknown) => ReturnType<Atelier['tools']['executor']['execute']>
  }
  beforeAll(() => {
    const dataDir = mkdtempSync(join(tmpdir(), 'atelier-lsp-data-'))
    const project = realpathSync(mkdtempSync(join(tmpdir(), 'atelier-lsp-project-')))
    made.push(dataDir, project)
    writeTree(project, files)
    const atelier = createAtelier({ dataDir })
    // A generous budget: the point of these tests is what is reported, not how fast on a loaded machine.
    atelier.preferences.update({
      codeIntelligence: { ...DEFAULT_CODE_INTELLIGENCE_SETTINGS, waitSeconds: 30, ...settings },
      // The fixture servers' code is in this checkout, which may sit under /tmp (as CI's may): a
      // sandboxed server sees a private /tmp, so the checkout is made visible, as docs/sandbox.md says.
      sandbox: { ...DEFAULT_SANDBOX_SETTINGS, writablePaths: [CHECKOUT] },
    })
    const chat = atelier.chats.ensure('code', { workingDir: project, mode: 'agent' })
    const scope: ToolCallScope = {
      chatId: chat.id,
      user: LOCAL_USER,
      workingDirectory: project,
      mode: 'agent',
      restrict: true,
    }
    Object.assign(state, {
      atelier,
      project,
      scope,
      run: (name: string, args: unknown) => atelier.tools.executor.execute({ name, arguments: args }, scope),
    })
  })
  afterAll(async () => {
    await state.atelier?.close()
    for (const dir of made) rmSync(dir, { recursive: true, force: true })
  })
  return state
}

/** Whether a process is still there. */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}
