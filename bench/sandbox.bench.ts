/**
 * What the sandbox costs a command: the same bash call through the executor with the sandbox on and
 * off (two instances, the same folder), for `true` and for `git status` in a committed tree of
 * 20,000 files (200 in quick mode) — the sandboxed side also finds the tree's protected paths, which
 * it does before every call. And the probe that finds the sandbox once at start.
 */
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type Atelier, LOCAL_USER } from '../src-main/app/create-atelier'
import type { ToolCallScope } from '../src-main/tools/executor'
import { Sandbox } from '../src-main/tools/sandbox/sandbox'
import { DEFAULT_SANDBOX_SETTINGS } from '../src-shared/sandbox'
import { type Benchmark, median, paired, sized, withBenchAtelier } from './measure'
import { requireSystemTool } from './system-tool'

const FILES = sized(20_000, 200)
const FILES_PER_FOLDER = 100
const ROUNDS = 5
const TRUE_CALLS = sized(20, 2)
const GIT_CALLS = sized(10, 1)
const PROBES = sized(10, 1)
/** The bounds: a call's overhead, and the probe at start. */
const OVERHEAD_TARGET_MS = 15
const PROBE_TARGET_MS = 50

/** A committed tree of `FILES` small files, 100 a folder; its index fresh, so `git status` only stats. */
function gitTree(root: string): void {
  for (let file = 0; file < FILES; file++) {
    const folder = join(root, 'src', `module-${Math.floor(file / FILES_PER_FOLDER)}`)
    if (file % FILES_PER_FOLDER === 0) mkdirSync(folder, { recursive: true })
    writeFileSync(join(folder, `file-${file}.ts`), `export const value${file} = ${file}\n`)
  }
  const git = (...args: string[]) => execFileSync('git', args, { cwd: root, stdio: 'ignore' })
  git('init', '-q')
  git('add', '-A')
  git('-c', 'user.name=bench', '-c', 'user.email=bench@example.com', 'commit', '-q', '-m', 'tree')
  // Written after the files' times, the index holds no racily clean entry a read-only .git leaves stale.
  git('status')
}

/** Runs bash commands in `folder` through the executor of an instance whose sandbox is on or off. */
function shellIn(atelier: Atelier, folder: string, sandbox: boolean) {
  atelier.tools.settings.update(LOCAL_USER, 'bash', { enabled: true })
  atelier.preferences.update({ sandbox: { ...DEFAULT_SANDBOX_SETTINGS, enabled: sandbox } })
  const chat = atelier.chats.ensure(`bench-${sandbox ? 'on' : 'off'}`, { workingDir: folder, mode: 'agent' })
  const scope: ToolCallScope = {
    chatId: chat.id,
    user: LOCAL_USER,
    workingDirectory: folder,
    mode: 'agent',
    restrict: true,
  }
  return async (command: string) => {
    const result = await atelier.tools.executor.execute({ name: 'bash', arguments: { command } }, scope)
    const ran = result.display?.kind === 'shell' ? result.display.sandbox?.state : undefined
    if (result.isError || ran !== (sandbox ? 'sandboxed' : 'off')) {
      throw new Error(`"${command}" with the sandbox ${sandbox ? 'on' : 'off'}: ${ran}: ${result.content}`)
    }
  }
}

const benchmark: Benchmark = async () => {
  requireSystemTool('bubblewrap')
  const probes: number[] = []
  for (let probe = 0; probe < PROBES; probe++) {
    const { status } = await Sandbox.detect()
    if (!status.available) throw new Error(`No sandbox here: ${status.reason}`)
    probes.push(status.probeMs)
  }

  const tree = realpathSync(mkdtempSync(join(tmpdir(), 'atelier-bench-sandbox-')))
  try {
    gitTree(tree)
    return await withBenchAtelier((confined) =>
      withBenchAtelier(async (plain) => {
        const sandboxed = shellIn(confined, tree, true)
        const unconfined = shellIn(plain, tree, false)
        const row = async (name: string, command: string, calls: number) => {
          const [ours, reference] = await paired(
            calls,
            ROUNDS,
            () => sandboxed(command),
            () => unconfined(command),
          )
          return {
            name,
            ours: { label: 'sandboxed', msPerOp: ours },
            reference: { label: 'sandbox off', msPerOp: reference },
            target: `target ≤ ${OVERHEAD_TARGET_MS} ms`,
            note: `median overhead ${(ours - reference).toFixed(1)} ms a call`,
          }
        }
        const probeMs = median(probes)
        return [
          await row('a bash call: true', 'true', TRUE_CALLS),
          await row(`a bash call: git status, ${FILES.toLocaleString('en')} files`, 'git status', GIT_CALLS),
          {
            name: 'the sandbox probe at start',
            ours: { label: 'Sandbox.detect()', msPerOp: probeMs },
            reference: { label: 'target', msPerOp: PROBE_TARGET_MS },
            note: `probe ${probeMs.toFixed(1)} ms (median of ${PROBES}; worst ${Math.max(...probes).toFixed(1)} ms)`,
          },
        ]
      }),
    )
  } finally {
    rmSync(tree, { recursive: true, force: true })
  }
}

export default benchmark
