/**
 * What a tool module is, as trusting a project records it: a digest of its file — or, for a folder
 * module (`name/index.ts`), of every file in its folder — so that a module edited or added after the
 * person trusted the project (a `git pull`) is told apart from the one they trusted.
 */
import { createHash } from 'node:crypto'
import { lstatSync, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs'
import { basename, dirname, join, relative } from 'node:path'

/** A folder module's entry: the folder is the module. */
const INDEX = /^index\.(ts|mts|js|mjs)$/
/** Dependencies the person installs beside a folder module: too many files to read at every turn. */
const SKIPPED_FOLDERS = new Set(['node_modules'])

/**
 * The module's digest, keyed by its real path (the same module found through a symlinked project
 * has the same key); undefined when it cannot be read. `toolFolder`: the folder it was found in.
 */
export function fingerprintOf(
  module: string,
  toolFolder: string,
): { key: string; digest: string } | undefined {
  try {
    const key = realpathSync(module)
    const folderModule = INDEX.test(basename(module)) && dirname(module) !== toolFolder
    const hash = createHash('sha256')
    const files = folderModule ? filesUnder(dirname(key)) : [key]
    for (const file of files) {
      // The relative path counts too: a file renamed or moved within the module is a change.
      hash.update(`${relative(dirname(key), file)}\0`)
      hash.update(createHash('sha256').update(readFileSync(file)).digest())
    }
    return { key, digest: hash.digest('hex') }
  } catch {
    return undefined
  }
}

/** Every file under `folder`, sorted; links to files count as their targets, links to folders are not followed. */
function filesUnder(folder: string): string[] {
  const files: string[] = []
  for (const name of readdirSync(folder).sort()) {
    const path = join(folder, name)
    const info = lstatSync(path)
    if (info.isDirectory()) {
      if (!SKIPPED_FOLDERS.has(name)) files.push(...filesUnder(path))
    } else if (
      info.isFile() ||
      (info.isSymbolicLink() && statSync(path, { throwIfNoEntry: false })?.isFile())
    ) {
      files.push(path)
    }
  }
  return files
}
