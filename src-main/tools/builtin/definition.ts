import type { Static } from '@sinclair/typebox'
import { CodePositionParameters, codeToolSettings, placesWithText, symbolPlaces } from '../code-intelligence'
import { defineTool } from '../define-tool'
import { describePath } from '../paths'
import { registerTool } from '../registry'
import type { ToolContext } from '../types'

type Parameters = Static<typeof CodePositionParameters>

async function definition(args: Parameters, context: ToolContext) {
  const { found, policy } = await symbolPlaces(args, context, 'definition')
  return { definitions: placesWithText(found, policy) }
}

export const definitionTool = defineTool({
  name: 'definition',
  description:
    'Finds where the symbol at a place in a file is defined, as the language server of its language sees it ' +
    '(imports followed). Returns { definitions: [{ file, line, column, text }] }, each file named so read_file takes it; ' +
    'empty when the place holds no symbol.',
  parameters: CodePositionParameters,
  settings: codeToolSettings(
    'Go to definition',
    'Lets the model ask a language server where a symbol is defined.',
  ),
  kind: 'read',
  describe: (args, context) => describePath(args.path, context, `${args.path}:${args.line}:${args.column}`),
  execute: definition,
})

registerTool(definitionTool)
