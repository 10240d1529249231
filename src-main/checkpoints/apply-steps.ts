/**
 * Sets paths of a folder to what a snapshot holds: the one place a checkpoint writes into the
 * person's folder. Every step can be applied again with the same result, so a restore cut short by
 * a crash is finished by applying all its steps once more (see the restore journal).
 *
 * A file is written beside its place under a temporary name and renamed over it: each path is
 * either as it was or as restored, never half written.
 */
import {
  chmodSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  renameSync,
  rmdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { basename, dirname, join } from 'node:path'
import type { RestoreStep } from '../db/checkpoints-repository'
import type { ObjectStore } from './object-store'

/** The temporary name a step writes under: fixed per restore, so a crash's leftover is found again. */
function temporaryPath(path: string, restoreId: string): string {
  return join(dirname(path), `.${basename(path)}.atelier-restore-${restoreId.slice(0, 8)}`)
}

/**
 * Applies the steps: removals deepest first, then folders shallowest first, then files and links.
 * A folder that should go but still holds something no step removes (a file .gitignore kept out
 * of the snapshots) stays, and is returned.
 */
export function applySteps(
  folder: string,
  store: ObjectStore,
  steps: readonly RestoreStep[],
  restoreId: string,
): { keptFolders: string[] } {
  const at = (step: RestoreStep) => join(folder, ...step.path.split('/'))
  const byDepth = [...steps].sort((a, b) => depth(b.path) - depth(a.path))
  const keptFolders: string[] = []
  for (const step of byDepth) {
    const path = at(step)
    const current = lstatSync(path, { throwIfNoEntry: false })
    if (!current) continue
    if (step.to === null || (step.to.type !== 'folder') !== !current.isDirectory()) {
      if (!current.isDirectory()) rmSync(path, { force: true })
      else if (readdirSync(path).length === 0) rmdirSync(path)
      else if (step.to === null) keptFolders.push(step.path)
      // A folder that becomes a file: what was in it went with the steps above.
      else rmSync(path, { recursive: true, force: true })
    }
  }
  for (const step of [...byDepth].reverse()) {
    if (step.to?.type !== 'folder') continue
    const path = at(step)
    mkdirSync(path, { recursive: true })
    chmodSync(path, step.to.mode)
  }
  for (const step of steps) {
    const to = step.to
    if (!to || to.type === 'folder') continue
    const path = at(step)
    const temporary = temporaryPath(path, restoreId)
    rmSync(temporary, { force: true })
    mkdirSync(dirname(path), { recursive: true })
    if (to.type === 'symlink') {
      symlinkSync(store.get(to.hash).toString(), temporary)
    } else {
      writeFileSync(temporary, store.get(to.hash), { mode: to.mode })
      chmodSync(temporary, to.mode)
    }
    renameSync(temporary, path)
  }
  return { keptFolders }
}

function depth(path: string): number {
  return path.split('/').length
}
