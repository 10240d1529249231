import { dirname } from 'node:path'
import { type Static, Type } from '@sinclair/typebox'
import type { ToolDisplay } from '../../../src-shared/tools'
import { defineTool } from '../define-tool'
import { fileChangeOutput, unifiedDiff } from '../diff'
import { ToolArgumentError, ToolError } from '../errors'
import { assertReadFirst, readCurrent } from '../file-guard'
import { makeFolders, serializedByPath, sha256, writeFileAtomically } from '../files'
import { describePath, pathArgument, resolveTarget, writeToolSettings } from '../paths'
import { registerTool } from '../registry'
import type { ToolContext, ToolOutput } from '../types'

const Parameters = Type.Object(
  {
    path: pathArgument('file'),
    content: Type.String({ description: 'The whole new content of the file.' }),
    encoding: Type.Optional(
      Type.Union([Type.Literal('utf8'), Type.Literal('base64')], {
        description: 'utf8 (default) for text; base64 to write binary bytes.',
      }),
    ),
  },
  { additionalProperties: false },
)
type Parameters = Static<typeof Parameters>

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/

/**
 * Past this (old and new content together) the person is not shown the change as a diff: making it
 * would slow every write of a big file, and the result would be stored beside the content it repeats.
 */
const SHOWN_DIFF_BYTES = 256 * 1024

function decode(content: string, encoding: 'utf8' | 'base64'): Buffer {
  if (encoding === 'utf8') return Buffer.from(content, 'utf8')
  const compact = content.replace(/\s+/g, '')
  if (compact.length % 4 !== 0 || !BASE64.test(compact)) {
    throw new ToolArgumentError('content is not valid base64', 'content')
  }
  return Buffer.from(compact, 'base64')
}

export async function writeFile(args: Parameters, context: ToolContext): Promise<ToolOutput> {
  const bytes = decode(args.content, args.encoding ?? 'utf8')
  const { real, display } = await resolveTarget(args.path, context)
  return serializedByPath(real, context.signal, async () => {
    const current = await readCurrent(real, display, context.signal)
    if (current) await assertReadFirst(current, real, display, context)
    else await makeFolders(dirname(real))
    try {
      await writeFileAtomically(real, bytes, {
        mode: current?.mode,
        exclusive: !current,
        signal: context.signal,
        beginCommit: context.beginCommit,
      })
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
      throw new ToolError(
        'not_read',
        `"${display}" appeared while it was being created. Read it with read_file first.`,
      )
    }
    const digest = sha256(bytes)
    await context.ledger.record(real, digest)
    const result = { path: display, size: bytes.length, sha256: digest, created: !current }
    const patch = unifiedDiff(display, current?.bytes ?? Buffer.alloc(0), bytes, SHOWN_DIFF_BYTES)
    return fileChangeOutput(result, display, patch)
  })
}

/** The diff a write would make, for a person deciding on it; nothing is written. */
async function previewWrite(args: Parameters, context: ToolContext): Promise<ToolDisplay | undefined> {
  const bytes = decode(args.content, args.encoding ?? 'utf8')
  const { real, display } = await resolveTarget(args.path, context)
  const current = await readCurrent(real, display, context.signal)
  const patch = unifiedDiff(display, current?.bytes ?? Buffer.alloc(0), bytes, SHOWN_DIFF_BYTES)
  return patch === undefined ? undefined : { kind: 'diff', path: display, patch }
}

export const writeFileTool = defineTool({
  name: 'write_file',
  description:
    'Writes a whole file, creating it (and its folders) when it does not exist. An existing file can be ' +
    'overwritten only after read_file has read its current content in this chat; otherwise read it first. ' +
    'To change part of a file prefer edit_file.',
  parameters: Parameters,
  settings: writeToolSettings('Write files', 'Lets the model create files, and overwrite files it has read.'),
  kind: 'edit',
  describe: (args, context) => describePath(args.path, context),
  preview: previewWrite,
  check: async (args, context) => {
    decode(args.content, args.encoding ?? 'utf8')
    const { real, display } = await resolveTarget(args.path, context)
    const current = await readCurrent(real, display, context.signal)
    if (current) await assertReadFirst(current, real, display, context)
  },
  execute: writeFile,
})

registerTool(writeFileTool)
