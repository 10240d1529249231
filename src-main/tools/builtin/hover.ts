import type { Static } from '@sinclair/typebox'
import { CodePositionParameters, codeScope, codeToolSettings } from '../code-intelligence'
import { defineTool } from '../define-tool'
import { describePath } from '../paths'
import { registerTool } from '../registry'
import type { ToolContext } from '../types'

type Parameters = Static<typeof CodePositionParameters>

/** A hover is a type and a few lines of documentation; a longer one is cut here. */
const MAX_HOVER_CHARS = 4000

async function hover(args: Parameters, context: ToolContext): Promise<string> {
  const { servers, folder, real = args.path } = await codeScope(context, args.path)
  const text = await servers.hover(
    folder,
    { path: real, line: args.line, column: args.column },
    context.signal,
  )
  if (text === undefined) return `Nothing is known at ${args.path}:${args.line}:${args.column}.`
  return text.length > MAX_HOVER_CHARS ? `${text.slice(0, MAX_HOVER_CHARS)}…` : text
}

export const hoverTool = defineTool({
  name: 'hover',
  description:
    'Asks the language server what the symbol at a place in a file is: its type or signature and its documentation, as text.',
  parameters: CodePositionParameters,
  settings: codeToolSettings(
    'Hover',
    'Lets the model ask a language server for the type and documentation of a symbol.',
  ),
  kind: 'read',
  describe: (args, context) => describePath(args.path, context, `${args.path}:${args.line}:${args.column}`),
  execute: hover,
})

registerTool(hoverTool)
