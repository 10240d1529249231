import type { Dirent } from 'node:fs'
import { lstat, realpath } from 'node:fs/promises'
import { join } from 'node:path'
import { type Static, Type } from '@sinclair/typebox'
import { defineTool } from '../define-tool'
import { ToolError, ToolPathError } from '../errors'
import {
  checkPath,
  describePath,
  loadPathPolicy,
  pathArgument,
  pathToolSettings,
  resolveAndValidatePath,
} from '../paths'
import { withDisplay } from '../pipeline/shape'
import { registerTool } from '../registry'
import type { ToolContext } from '../types'
import { listFolder } from '../walk'

/** A folder with more entries is listed in part, with `truncated` set, so one call cannot flood the context. */
export const MAX_ENTRIES = 1000

const Parameters = Type.Object(
  {
    path: pathArgument('folder'),
  },
  { additionalProperties: false },
)
type Parameters = Static<typeof Parameters>

type EntryType = 'file' | 'directory' | 'symlink' | 'other'

function typeOf(entry: Dirent): EntryType {
  if (entry.isFile()) return 'file'
  if (entry.isDirectory()) return 'directory'
  if (entry.isSymbolicLink()) return 'symlink'
  return 'other'
}

export async function listDirectory(args: Parameters, context: ToolContext) {
  const policy = await loadPathPolicy(context)
  const { real, exists } = await resolveAndValidatePath(args.path, context, policy)
  const display = policy.display(real)
  if (!exists) throw new ToolError('not_found', `No folder at "${display}".`)
  if (!(await lstat(real)).isDirectory()) {
    throw new ToolError(
      'validation_failed',
      `"${display}" is a file, not a folder; use read_file to read it.`,
    )
  }
  const visible: { name: string; type: EntryType }[] = []
  // Listed through the folder's own descriptor: a folder swapped for a link after the check shows nothing.
  const listed = listFolder(real)
  if (!listed)
    throw new ToolPathError('path_denied', `"${display}" changed while it was being listed; try again.`)
  for (const entry of listed) {
    const path = join(real, entry.name)
    // A denied entry is not shown, nor a symlink that is an alias of one.
    const target = entry.isSymbolicLink() ? await realpath(path).catch(() => path) : path
    if (policy.refusal(path)?.rule === 'deniedPaths' || policy.refusal(target)?.rule === 'deniedPaths')
      continue
    visible.push({ name: entry.name, type: typeOf(entry) })
  }
  const entries = visible.slice(0, MAX_ENTRIES)
  return { path: display, entries, ...(visible.length > MAX_ENTRIES && { truncated: true }) }
}

export const listDirectoryTool = defineTool({
  name: 'list_directory',
  description: `Lists a folder's entries by name with their type (file, directory, symlink, other), sorted; at most ${MAX_ENTRIES}.`,
  parameters: Parameters,
  settings: pathToolSettings('List folders', 'Lets the model see what a folder holds.'),
  kind: 'read',
  describe: (args, context) => describePath(args.path, context),
  check: (args, context) => checkPath(args.path, context),
  execute: async (args, context) => {
    const result = await listDirectory(args, context)
    const entries = result.entries.map(({ name, type }) => ({
      path: name,
      ...(type === 'directory' && { folder: true }),
    }))
    return withDisplay(result, {
      kind: 'paths',
      root: result.path,
      entries,
      truncated: result.truncated === true,
    })
  },
})

registerTool(listDirectoryTool)
