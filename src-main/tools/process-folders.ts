/**
 * Temp folders that belong to one Atelier process (its shells' FIFOs, its search workers' sync
 * points): in the temp folder, named after the process, only this user can enter them; removed
 * when the process exits. The first one of a kind also removes the folders of that kind left by
 * Atelier processes that ended without exiting (killed), after `leftBehind` has dealt with what
 * such a folder says (a kind whose folder records work outside it, such as unfinished writes).
 */

import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pidExists } from '../core/process-owner'

const made = new Map<string, string>()

/** What to do with a folder of an ended process before it is removed. */
export type LeftBehind = (folder: string) => void

/** This process's folder of `kind` (made on first use, and again if it went). */
export function processFolder(kind: string, leftBehind?: LeftBehind): string {
  const known = made.get(kind)
  if (known !== undefined && existsSync(known)) return known
  if (known === undefined) removeFoldersOfEndedProcesses(kind, leftBehind)
  const folder = mkdtempSync(join(tmpdir(), `atelier-${kind}-${process.pid}-`))
  made.set(kind, folder)
  process.once('exit', () => {
    try {
      rmSync(folder, { recursive: true, force: true })
    } catch {
      // Left for the next Atelier process to remove.
    }
  })
  return folder
}

/** Removes the folders of `kind` whose processes are no longer running, each after `leftBehind`. */
export function removeFoldersOfEndedProcesses(kind: string, leftBehind?: LeftBehind): void {
  const temp = tmpdir()
  let names: string[]
  try {
    names = readdirSync(temp)
  } catch {
    return
  }
  const prefix = `atelier-${kind}-`
  for (const name of names) {
    if (!name.startsWith(prefix)) continue
    const pid = Number(/^(\d+)-/.exec(name.slice(prefix.length))?.[1])
    if (!pid || pid === process.pid || pidExists(pid)) continue
    try {
      leftBehind?.(join(temp, name))
      rmSync(join(temp, name), { recursive: true, force: true })
    } catch {
      // Someone else's, or gone meanwhile.
    }
  }
}
