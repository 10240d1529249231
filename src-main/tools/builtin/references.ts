import type { Static } from '@sinclair/typebox'
import { CodePositionParameters, codeToolSettings, placesWithText, symbolPlaces } from '../code-intelligence'
import { defineTool } from '../define-tool'
import { describePath } from '../paths'
import { registerTool } from '../registry'
import type { ToolContext } from '../types'

type Parameters = Static<typeof CodePositionParameters>

/** Enough uses to judge a change by; more are counted, not listed. */
const MAX_REFERENCES = 100

async function references(args: Parameters, context: ToolContext) {
  const { found, policy } = await symbolPlaces(args, context, 'references')
  const listed = placesWithText(found.slice(0, MAX_REFERENCES), policy)
  return { references: listed, ...(found.length > MAX_REFERENCES && { more: found.length - MAX_REFERENCES }) }
}

export const referencesTool = defineTool({
  name: 'references',
  description:
    'Finds the uses of the symbol at a place in a file across the project, as its language server sees them ' +
    `(the definition itself left out). Returns { references: [{ file, line, column, text }], more? }: at most ${MAX_REFERENCES}, ` +
    'more counting the rest.',
  parameters: CodePositionParameters,
  settings: codeToolSettings(
    'Find references',
    'Lets the model ask a language server where a symbol is used.',
  ),
  kind: 'read',
  describe: (args, context) => describePath(args.path, context, `${args.path}:${args.line}:${args.column}`),
  execute: references,
})

registerTool(referencesTool)
