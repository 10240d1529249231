import { type Static, Type } from '@sinclair/typebox'
import type { ToolDisplay } from '../../../src-shared/tools'
import { defineTool } from '../define-tool'
import { fileChangeOutput, isText, unifiedDiff } from '../diff'
import { ToolArgumentError, ToolError } from '../errors'
import { assertReadFirst, readCurrent } from '../file-guard'
import { serializedByPath, sha256, writeFileAtomically } from '../files'
import { describePath, pathArgument, resolveTarget, writeToolSettings } from '../paths'
import { registerTool } from '../registry'
import type { ToolContext, ToolOutput } from '../types'

const Parameters = Type.Object(
  {
    path: pathArgument('file'),
    old_string: Type.String({
      minLength: 1,
      description:
        'The exact text to replace, whitespace included; it must occur once unless replace_all is set.',
    }),
    new_string: Type.String({ description: 'The text to put in its place.' }),
    replace_all: Type.Optional(Type.Boolean({ description: 'Replace every occurrence. Default false.' })),
  },
  { additionalProperties: false },
)
type Parameters = Static<typeof Parameters>

function occurrences(text: string, search: string): number {
  let count = 0
  for (let at = text.indexOf(search); at !== -1; at = text.indexOf(search, at + search.length)) count++
  return count
}

export async function editFile(args: Parameters, context: ToolContext): Promise<ToolOutput> {
  const { real, display } = await target(args, context)
  return serializedByPath(real, context.signal, async () => {
    const { current, after, replacements } = await planEdit(args, context, real, display)
    const bytes = Buffer.from(after, 'utf8')
    await writeFileAtomically(real, bytes, {
      mode: current.mode,
      exclusive: false,
      signal: context.signal,
      beginCommit: context.beginCommit,
    })
    await context.ledger.record(real, sha256(bytes))
    const patch = unifiedDiff(display, current.bytes, bytes)
    const diff = patch ?? `(diff too large to show: ${current.bytes.length} → ${bytes.length} bytes)`
    return fileChangeOutput({ path: display, replacements, diff }, display, patch)
  })
}

/** The file as it is and as the edit would leave it, every check passed (read first, found once); nothing written. */
async function planEdit(args: Parameters, context: ToolContext, real: string, display: string) {
  const current = await readText(real, display, context)
  await assertReadFirst(current, real, display, context)
  return { current, ...replace(current.bytes.toString('utf8'), args, display) }
}

/** The diff the edit would make, for a person deciding on it; nothing is written. */
async function previewEdit(args: Parameters, context: ToolContext): Promise<ToolDisplay | undefined> {
  const { real, display } = await target(args, context)
  const { current, after } = await planEdit(args, context, real, display)
  const patch = unifiedDiff(display, current.bytes, Buffer.from(after, 'utf8'))
  return patch === undefined ? undefined : { kind: 'diff', path: display, patch }
}

async function target(args: Parameters, context: ToolContext): Promise<{ real: string; display: string }> {
  if (args.old_string === args.new_string) {
    throw new ToolArgumentError('old_string and new_string are the same; there is nothing to change')
  }
  return resolveTarget(args.path, context)
}

async function readText(real: string, display: string, context: ToolContext) {
  const current = await readCurrent(real, display, context.signal)
  if (!current) throw new ToolError('not_found', `No file at "${display}". Use write_file to create it.`)
  // Decoding anything but UTF-8 and writing it back would replace every other byte with U+FFFD.
  if (!isText(current.bytes)) {
    throw new ToolError(
      'validation_failed',
      `"${display}" is not UTF-8 text; edit_file changes UTF-8 text only.`,
    )
  }
  return current
}

function replace(before: string, args: Parameters, display: string): { after: string; replacements: number } {
  const found = occurrences(before, args.old_string)
  if (found === 0) {
    throw new ToolError(
      'validation_failed',
      `old_string was not found in "${display}". Read the file again and copy the text exactly, whitespace included.`,
    )
  }
  if (found > 1 && !args.replace_all) {
    throw new ToolError(
      'validation_failed',
      `old_string occurs ${found} times in "${display}". Include more surrounding lines to make it unique, or set replace_all.`,
    )
  }
  const after = args.replace_all
    ? before.split(args.old_string).join(args.new_string)
    : before.replace(args.old_string, () => args.new_string)
  return { after, replacements: args.replace_all ? found : 1 }
}

export const editFileTool = defineTool({
  name: 'edit_file',
  description:
    'Replaces exact text in a file: old_string must match the file character for character (whitespace too) ' +
    'and occur once, unless replace_all is set. The file must have been read with read_file in this chat. ' +
    'Returns a unified diff of the change.',
  parameters: Parameters,
  settings: writeToolSettings(
    'Edit files',
    'Lets the model change parts of files it has read, shown as a diff.',
  ),
  kind: 'edit',
  describe: (args, context) => describePath(args.path, context),
  preview: previewEdit,
  check: async (args, context) => {
    const { real, display } = await target(args, context)
    await planEdit(args, context, real, display)
  },
  execute: editFile,
})

registerTool(editFileTool)
