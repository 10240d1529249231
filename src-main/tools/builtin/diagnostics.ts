import { type Static, Type } from '@sinclair/typebox'
import { codeScope, codeToolSettings } from '../code-intelligence'
import { defineTool } from '../define-tool'
import { describePath } from '../paths'
import { registerTool } from '../registry'
import type { ToolContext, ToolOutput } from '../types'

const Parameters = Type.Object(
  {
    path: Type.Optional(
      Type.String({
        minLength: 1,
        description:
          'The file to check (relative to the working folder, or absolute). Without it: every file the language servers of the folder have checked.',
      }),
    ),
  },
  { additionalProperties: false },
)
type Parameters = Static<typeof Parameters>

/** As many as a model can act on in one go; more are counted. */
const MAX_DIAGNOSTICS = 100
const ORDER = { error: 0, warning: 1, info: 2, hint: 3 }

async function diagnostics(args: Parameters, context: ToolContext): Promise<ToolOutput> {
  const { servers, folder, policy, real } = await codeScope(context, args.path)
  const found = (await servers.diagnostics(folder, real, context.signal)).sort(
    (a, b) => ORDER[a.severity] - ORDER[b.severity] || a.path.localeCompare(b.path) || a.line - b.line,
  )
  const where = args.path ?? 'the files the language servers have checked'
  if (found.length === 0) return { content: `No problems in ${where}.` }
  const lines = found.slice(0, MAX_DIAGNOSTICS).map((diagnostic) => {
    const source = diagnostic.source ? ` (${diagnostic.source})` : ''
    const message = diagnostic.message.replace(/\s*\n\s*/g, ' ')
    return `${policy.display(diagnostic.path)}:${diagnostic.line}:${diagnostic.column} ${diagnostic.severity} ${message}${source}`
  })
  if (found.length > MAX_DIAGNOSTICS) lines.push(`… and ${found.length - MAX_DIAGNOSTICS} more`)
  return { content: lines.join('\n') }
}

export const diagnosticsTool = defineTool({
  name: 'diagnostics',
  description:
    'Reports the errors and warnings a language server finds (type errors, unresolved names, syntax), one a line: ' +
    '`path:line:col severity message (source)`, errors first. With path: that file as it is on disk. Without: every ' +
    `file the servers of this folder have checked so far (the whole project where the server checks it). At most ${MAX_DIAGNOSTICS}.`,
  parameters: Parameters,
  settings: codeToolSettings(
    'Diagnostics',
    'Lets the model ask language servers for the errors in a file or the project.',
  ),
  kind: 'read',
  describe: (args, context) =>
    args.path !== undefined ? describePath(args.path, context) : { summary: 'the project', locations: [] },
  execute: diagnostics,
})

registerTool(diagnosticsTool)
