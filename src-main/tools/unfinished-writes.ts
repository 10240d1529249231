/**
 * The temporary files of atomic writes, accounted for so that a killed Atelier leaves none behind.
 * A temporary file must sit in its target's folder — a rename is atomic only within one file
 * system, and any folder may be a mount point — so it sits where the person sees it. Each one is
 * noted in this process's folder of unfinished writes before it is made and forgotten once it is
 * gone; the next Atelier to start removes those its ended predecessors noted. Nobody's folders are
 * searched: only the exact paths a process noted, and only names of our own pattern.
 */
import { readdirSync, readFileSync, unlinkSync } from 'node:fs'
import { unlink, writeFile } from 'node:fs/promises'
import { basename, join } from 'node:path'
import { processFolder, removeFoldersOfEndedProcesses } from './process-folders'

const KIND = 'writes'

/** `.<target name>.atelier-<12 hex digits>.tmp`: the name writeFileAtomically gives its temporary file. */
const TEMPORARY_NAME = /^\..+\.atelier-[0-9a-f]{12}\.tmp$/

/** The temporary file's name for a write to `target` with the random `id` (12 hex digits). */
export function temporaryName(target: string, id: string): string {
  return `.${basename(target)}.atelier-${id}.tmp`
}

/**
 * Runs `work`, which makes and removes the temporary file `path` (by its real path), noted
 * meanwhile: a kill before the file is gone leaves it to the next start to remove.
 */
export async function whileNoted<T>(path: string, id: string, work: () => Promise<T>): Promise<T> {
  const note = join(processFolder(KIND, removeNotedFiles), id)
  await writeFile(note, path)
  try {
    return await work()
  } finally {
    await unlink(note).catch(() => {})
  }
}

/**
 * Removes the temporary files that Atelier processes killed in the middle of a write left in
 * people's folders. Called once at start; a live process's files are never touched.
 */
export function removeTemporaryFilesOfEndedProcesses(): void {
  removeFoldersOfEndedProcesses(KIND, removeNotedFiles)
}

function removeNotedFiles(folder: string): void {
  for (const note of readdirSync(folder)) {
    try {
      const path = readFileSync(join(folder, note), 'utf8')
      if (TEMPORARY_NAME.test(basename(path))) unlinkSync(path)
    } catch {
      // Renamed over its target or removed before the process died: nothing is left.
    }
  }
}
