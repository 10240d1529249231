import type { MessagePart, ToolResultPart } from '../../src-shared/agent'
import type { ChatExport, ExportedTurn } from '../../src-shared/chat-export'

/**
 * A chat as Markdown for people to read: the prompts and answers as written, each tool call where
 * the model made it, its arguments and result folded in a `<details>`. Providers' own items
 * (reasoning) are left out: they are opaque, and the JSON export keeps them.
 */
export function chatMarkdown(file: ChatExport): string {
  const { chat } = file
  const setting = [
    `${chat.mode} mode`,
    ...(chat.model ? [`model ${chat.model}`] : []),
    ...(chat.workingDir ? [`folder \`${chat.workingDir}\``] : []),
  ]
  const blocks = [`# ${chat.title}`, `*${setting.join(' · ')}*`, ...file.turns.flatMap(turnBlocks)]
  return `${blocks.join('\n\n')}\n`
}

function turnBlocks(turn: ExportedTurn): string[] {
  const results = new Map<string, ToolResultPart>()
  for (const message of turn.messages) {
    for (const part of message.parts) if (part.type === 'tool_result') results.set(part.callId, part)
  }
  const blocks: string[] = []
  let answering = false
  for (const message of turn.messages) {
    if (message.role === 'tool') continue
    if (message.role === 'user') {
      blocks.push('## You')
      answering = false
    } else if (!answering) {
      blocks.push('## Answer')
      answering = true
    }
    for (const part of message.parts) {
      const block = partBlock(part, results)
      if (block) blocks.push(block)
    }
  }
  if (turn.error) blocks.push(`> **${turn.status === 'stopped' ? 'Stopped' : 'Failed'}:** ${turn.error}`)
  return blocks
}

function partBlock(part: MessagePart, results: Map<string, ToolResultPart>): string | undefined {
  switch (part.type) {
    case 'text':
      return part.text.trim() || undefined
    case 'tool_call':
      return toolCallBlock(part.name, part.arguments, results.get(part.id))
    case 'attachment': {
      const { attachment } = part
      if (attachment.kind === 'image') return `*Image: ${attachment.name}*`
      const name =
        attachment.kind === 'mcp-resource' ? `${attachment.server}: ${attachment.name}` : attachment.name
      return details(`Attached: ${escapeHtml(name)}`, [fenced(attachment.text)])
    }
    case 'web_search':
      return [
        `*Searched the web: ${part.queries.join('; ')}*`,
        ...part.sources.map((source) => `- ${link(source)}`),
      ].join('\n')
    case 'citations':
      return `Sources: ${part.sources.map(link).join(', ')}`
    case 'tool_result':
    case 'opaque':
      return undefined
  }
}

function toolCallBlock(name: string, args: string, result: ToolResultPart | undefined): string {
  const outcome = result === undefined ? 'no result' : result.isError ? 'failed' : 'done'
  return details(`Tool call: <code>${escapeHtml(name)}</code> (${outcome})`, [
    '**Arguments**',
    fenced(prettyJson(args), 'json'),
    ...(result ? ['**Result**', fenced(result.content)] : []),
  ])
}

function details(summary: string, body: string[]): string {
  return [
    '<details>',
    `<summary>${summary}</summary>`,
    '',
    ...body.flatMap((block) => [block, '']),
    '</details>',
  ].join('\n')
}

/** A fenced block that no run of backticks in the text can close early. */
function fenced(text: string, language = ''): string {
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((run) => run[0].length))
  const fence = '`'.repeat(Math.max(3, longest + 1))
  return `${fence}${language}\n${text.replace(/\n$/, '')}\n${fence}`
}

/** The model's arguments indented to read; as written when they are not JSON. */
function prettyJson(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2)
  } catch {
    return text
  }
}

function link(source: { url: string; title?: string }): string {
  return `[${(source.title ?? source.url).replace(/[[\]]/g, '\\$&')}](${source.url})`
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
}
