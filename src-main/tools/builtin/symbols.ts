import { type Static, Type } from '@sinclair/typebox'
import { codeScope, codeToolSettings } from '../code-intelligence'
import { defineTool } from '../define-tool'
import { ToolArgumentError } from '../errors'
import { describePath } from '../paths'
import { registerTool } from '../registry'
import type { ToolContext } from '../types'

const Parameters = Type.Object(
  {
    path: Type.Optional(
      Type.String({
        minLength: 1,
        description: 'A file whose symbols to list (relative to the working folder, or absolute).',
      }),
    ),
    query: Type.Optional(
      Type.String({
        minLength: 1,
        description: 'Or: a name (or part of one) to look for across the project.',
      }),
    ),
  },
  { additionalProperties: false },
)
type Parameters = Static<typeof Parameters>

/** A file's outline or a search's best matches; more are counted. */
const MAX_SYMBOLS = 200

async function symbols(args: Parameters, context: ToolContext) {
  if ((args.path === undefined) === (args.query === undefined)) {
    throw new ToolArgumentError(
      "Give either path (a file's symbols) or query (a name to find), not both or neither.",
    )
  }
  const { servers, folder, policy, real } = await codeScope(context, args.path)
  const target = real !== undefined ? { path: real } : { query: args.query ?? '' }
  const found = await servers.symbols(folder, target, context.signal)
  const listed = found.slice(0, MAX_SYMBOLS).map(({ name, kind, path, line, column, container }) => ({
    name,
    kind,
    ...(real === undefined && { file: policy.display(path) }),
    line,
    column,
    ...(container && { container }),
  }))
  return { symbols: listed, ...(found.length > MAX_SYMBOLS && { more: found.length - MAX_SYMBOLS }) }
}

export const symbolsTool = defineTool({
  name: 'symbols',
  description:
    'Lists named things (functions, classes, methods, variables) as the language server sees them: with path, the ' +
    'outline of one file; with query, the matches across the project. Returns { symbols: [{ name, kind, file?, line, ' +
    `column, container? }], more? }: at most ${MAX_SYMBOLS}.`,
  parameters: Parameters,
  settings: codeToolSettings(
    'Symbols',
    'Lets the model ask a language server for the outline of a file or to find a name.',
  ),
  kind: 'read',
  describe: (args, context) =>
    args.path !== undefined ? describePath(args.path, context) : { summary: args.query ?? '', locations: [] },
  execute: symbols,
})

registerTool(symbolsTool)
