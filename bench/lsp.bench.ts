/**
 * What code intelligence costs and gives, on this repository's own TypeScript sources (src-main and
 * src-shared, copied with a tsconfig.json of their own; node_modules linked): the cold start of the
 * shipped TypeScript server to a file's first diagnostics, and a warm edit_file call that brings a
 * type error, to its result with that error — each against `tsc --noEmit -p` on the same tree, the
 * check an agent would otherwise run. The goal: warm edit-to-diagnostics ≤ 500 ms median.
 * In quick mode the tree is two small files.
 */
import { execFileSync } from 'node:child_process'
import { cpSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { LOCAL_USER } from '../src-main/app/create-atelier'
import type { ToolCallScope } from '../src-main/tools/executor'
import { type Benchmark, isQuick, median, sized, withBenchAtelier } from './measure'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const TSC = join(dirname(createRequire(import.meta.url).resolve('typescript/package.json')), 'bin', 'tsc')
const EDITS = sized(10, 1)
const TSC_RUNS = sized(3, 1)
/** The goal for a warm edit's diagnostics. */
const WARM_TARGET_MS = 500

/** The main process's sources and what they import (custom tools' public types). */
const SOURCE_FOLDERS = ['src-main', 'src-shared', 'src-custom-tool']

/** The file the warm edits change, and the line they break and mend. */
const EDITED = 'src-main/tools/executor.ts'
const SOUND = 'const started = performance.now()'
const BROKEN = 'const started: string = performance.now() // a type error, on purpose'

/** A copy of the sources to check, with a tsconfig.json that takes in exactly them. */
function sourceTree(): string {
  const tree = realpathSync(mkdtempSync(join(tmpdir(), 'atelier-bench-lsp-')))
  if (isQuick()) {
    writeFileSync(
      join(tree, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { strict: true, noEmit: true } }),
    )
    mkdirSync(join(tree, dirname(EDITED)), { recursive: true })
    writeFileSync(join(tree, EDITED), `export function run() {\n  ${SOUND}\n  return started\n}\n`)
    return tree
  }
  for (const folder of SOURCE_FOLDERS) cpSync(join(ROOT, folder), join(tree, folder), { recursive: true })
  cpSync(join(ROOT, 'tsconfig.base.json'), join(tree, 'tsconfig.base.json'))
  cpSync(join(ROOT, 'package.json'), join(tree, 'package.json'))
  symlinkSync(join(ROOT, 'node_modules'), join(tree, 'node_modules'))
  const config = {
    extends: './tsconfig.base.json',
    compilerOptions: { lib: ['ES2023', 'DOM'], types: ['node'] },
    include: SOURCE_FOLDERS,
  }
  writeFileSync(join(tree, 'tsconfig.json'), JSON.stringify(config, null, 2))
  return tree
}

/** One `tsc --noEmit -p` of the tree, in ms; it must find the tree sound. */
function tscOnce(tree: string): number {
  const started = performance.now()
  execFileSync(process.execPath, [TSC, '--noEmit', '-p', join(tree, 'tsconfig.json')], {
    cwd: tree,
    stdio: 'pipe',
  })
  return performance.now() - started
}

const benchmark: Benchmark = async () => {
  const tree = sourceTree()
  try {
    const tsc = median(Array.from({ length: TSC_RUNS }, () => tscOnce(tree)))
    return await withBenchAtelier(async (atelier) => {
      const chat = atelier.chats.ensure('bench-lsp', { workingDir: tree, mode: 'agent' })
      // A cold start on the whole tree can outlast the tool's 30 s default on a busy machine.
      atelier.tools.settings.update(LOCAL_USER, 'diagnostics', { parameters: { timeoutSeconds: 600 } })
      // The budget is generous: what is measured is how long the diagnostics take, not where they give up.
      atelier.preferences.update({
        codeIntelligence: { ...atelier.preferences.get().codeIntelligence, waitSeconds: 30 },
      })
      const scope: ToolCallScope = {
        chatId: chat.id,
        user: LOCAL_USER,
        workingDirectory: tree,
        mode: 'agent',
        restrict: true,
      }
      const call = (name: string, args: unknown) =>
        atelier.tools.executor.execute({ name, arguments: args }, scope)

      const coldStarted = performance.now()
      const first = await call('diagnostics', { path: EDITED })
      const cold = performance.now() - coldStarted
      if (first.isError) throw new Error(`The first diagnostics failed: ${first.content}`)

      await call('read_file', { path: EDITED })
      const warm: number[] = []
      for (let edit = 0; edit < EDITS; edit++) {
        const started = performance.now()
        const broke = await call('edit_file', { path: EDITED, old_string: SOUND, new_string: BROKEN })
        warm.push(performance.now() - started)
        if (!/error Type 'number' is not assignable to type 'string'/.test(broke.content)) {
          throw new Error(`The edit's result does not carry its type error:\n${broke.content}`)
        }
        const mended = await call('edit_file', { path: EDITED, old_string: BROKEN, new_string: SOUND })
        if (mended.isError || /problem|pending/.test(mended.content)) {
          throw new Error(`Mending the edit reported: ${mended.content}`)
        }
      }
      const reference = { label: 'tsc --noEmit -p (whole tree)', msPerOp: tsc }
      return [
        {
          name: 'lsp: cold start to first diagnostics',
          ours: { label: 'typescript-language-server, started', msPerOp: cold },
          reference,
        },
        {
          name: 'lsp: warm edit to its diagnostics',
          ours: { label: 'edit_file with its new errors', msPerOp: median(warm) },
          reference,
          target: `median ≤ ${WARM_TARGET_MS} ms`,
          note: `${EDITS} edits; fastest ${Math.round(Math.min(...warm))} ms, slowest ${Math.round(Math.max(...warm))} ms`,
        },
      ]
    })
  } finally {
    rmSync(tree, { recursive: true, force: true })
  }
}

export default benchmark
