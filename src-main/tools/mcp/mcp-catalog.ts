/**
 * What the enabled MCP servers offer beside tools — resources to attach to a message, prompts for
 * the composer — across all of them, connecting them first as a turn or the inspector would. Only
 * servers that declared `resources` (or `prompts`) are asked for them.
 */
import type { GetPromptResult, ReadResourceResult, Resource } from '@modelcontextprotocol/sdk/types.js'
import type { AttachmentPart } from '../../../src-shared/agent'
import {
  type AttachedMcpResource,
  MAX_ATTACHMENTS,
  type McpResourceAttachment,
  RESOURCE_TEXT_LIMIT,
} from '../../../src-shared/attachments'
import { AtelierError, errorMessage } from '../../../src-shared/errors'
import type { McpServerStatus } from '../../../src-shared/mcp'
import type {
  McpGetPromptRequest,
  McpPromptInfo,
  McpRenderedPrompt,
  McpResourceInfo,
  McpServerPrompts,
  McpServerResources,
} from '../../../src-shared/mcp-catalog'
import type { McpConnection } from './mcp-connection'

/** The servers as the catalog needs them: prepared (connected) on demand, then their connections. */
export interface McpServers {
  prepare(): Promise<McpServerStatus[]>
  connection(id: string): McpConnection | undefined
}

export class McpCatalog {
  constructor(private readonly servers: McpServers) {}

  /** Each enabled server's resources, or why it has none to show. */
  async resources(): Promise<McpServerResources[]> {
    return this.perServer(
      async (server, connection) => ({
        server,
        resources: (await connection.listResources()).map(resourceInfo),
      }),
      (server, error) => ({ server, resources: [], error }),
    )
  }

  /** Each enabled server's prompts with their arguments, or why it has none to show. */
  async prompts(): Promise<McpServerPrompts[]> {
    return this.perServer(
      async (server, connection) => ({
        server,
        prompts: (await connection.listPrompts()).map(
          (prompt): McpPromptInfo => ({
            name: prompt.name,
            ...(prompt.title && { title: prompt.title }),
            ...(prompt.description && { description: prompt.description }),
            arguments: (prompt.arguments ?? []).map((argument) => ({
              name: argument.name,
              ...(argument.description && { description: argument.description }),
              required: argument.required === true,
            })),
          }),
        ),
      }),
      (server, error) => ({ server, prompts: [], error }),
    )
  }

  /** A prompt's messages as text for the composer; a required argument left empty is refused first. */
  async getPrompt({ server, name, arguments: given = {} }: McpGetPromptRequest): Promise<McpRenderedPrompt> {
    const connection = await this.connected(server)
    const prompt = (await connection.listPrompts()).find((candidate) => candidate.name === name)
    if (!prompt) {
      throw new AtelierError('not_found', `The MCP server "${server}" has no prompt named "${name}".`, {
        server,
        name,
      })
    }
    const missing = (prompt.arguments ?? [])
      .filter((argument) => argument.required && !given[argument.name]?.trim())
      .map((argument) => argument.name)
    if (missing.length > 0) {
      throw new AtelierError(
        'missing_argument',
        `The prompt "${name}" of "${server}" needs ${missing.map((argument) => `"${argument}"`).join(', ')}.`,
        { server, name, missing },
      )
    }
    const known = new Set((prompt.arguments ?? []).map((argument) => argument.name))
    const args = Object.fromEntries(Object.entries(given).filter(([key, value]) => known.has(key) && value))
    let result: GetPromptResult
    try {
      result = await connection.getPrompt(name, args)
    } catch (error) {
      throw new AtelierError(
        'prompt_failed',
        `"${server}" could not give the prompt "${name}": ${errorMessage(error)}`,
        {
          server,
          name,
        },
      )
    }
    return { text: promptText(result) }
  }

  /**
   * Reads what a prompt has attached, all of it before anything is committed: a resource that cannot
   * be read refuses the whole send.
   */
  async read(attachments: readonly McpResourceAttachment[]): Promise<AttachmentPart[]> {
    if (attachments.length > MAX_ATTACHMENTS) {
      throw new AtelierError('validation_failed', `A message takes at most ${MAX_ATTACHMENTS} attachments.`)
    }
    if (attachments.length === 0) return []
    const statuses = await this.servers.prepare()
    const listed = new Map<string, Promise<Resource[]>>()
    const parts: AttachmentPart[] = []
    for (const { server, uri } of attachments) {
      const unreadable = (why: string) =>
        new AtelierError(
          'resource_unreadable',
          `The resource ${uri} of "${server}" could not be read: ${why}`,
          {
            server,
            uri,
          },
        )
      const connection = this.connectionOf(statuses, server, unreadable)
      let read: ReadResourceResult
      try {
        read = await connection.readResource(uri)
      } catch (error) {
        throw unreadable(errorMessage(error))
      }
      // The listing names the resource for its chip; a resource read by a URI it does not list keeps the URI.
      if (!listed.has(server))
        listed.set(
          server,
          connection.listResources().catch(() => []),
        )
      const resource = (await listed.get(server))?.find((candidate) => candidate.uri === uri)
      parts.push({ type: 'attachment', attachment: attachedResource(server, uri, resource, read) })
    }
    return parts
  }

  private async connected(server: string): Promise<McpConnection> {
    const statuses = await this.servers.prepare()
    return this.connectionOf(
      statuses,
      server,
      (why) =>
        new AtelierError('server_unavailable', `The MCP server "${server}" is not available: ${why}`, {
          server,
        }),
    )
  }

  private connectionOf(
    statuses: McpServerStatus[],
    server: string,
    fail: (why: string) => AtelierError,
  ): McpConnection {
    const status = statuses.find((candidate) => candidate.name === server)
    if (!status) throw fail('no enabled MCP server has that name')
    const connection = status.connected ? this.servers.connection(status.id) : undefined
    if (!connection) throw fail(status.error ?? 'it is not connected')
    return connection
  }

  private async perServer<T extends { server: string }>(
    list: (server: string, connection: McpConnection) => Promise<T>,
    unavailable: (server: string, error: string) => T,
  ): Promise<T[]> {
    const statuses = await this.servers.prepare()
    return Promise.all(
      statuses.map(async (status) => {
        const connection = status.connected ? this.servers.connection(status.id) : undefined
        if (!connection) return unavailable(status.name, status.error ?? 'not connected')
        try {
          return await list(status.name, connection)
        } catch (error) {
          return unavailable(status.name, errorMessage(error))
        }
      }),
    )
  }
}

function resourceInfo(resource: Resource): McpResourceInfo {
  return {
    uri: resource.uri,
    name: resource.name,
    ...(resource.title && { title: resource.title }),
    ...(resource.description && { description: resource.description }),
    ...(resource.mimeType && { mimeType: resource.mimeType }),
  }
}

/**
 * A resource's contents as the message keeps them: its texts one after the other, a binary part as a
 * line saying what it was (the model is given text only), all cut at `RESOURCE_TEXT_LIMIT`.
 */
function attachedResource(
  server: string,
  uri: string,
  resource: Resource | undefined,
  read: ReadResourceResult,
): AttachedMcpResource {
  const texts = read.contents.map((content) => {
    if ('text' in content && typeof content.text === 'string') return content.text
    const blob = 'blob' in content && typeof content.blob === 'string' ? content.blob : ''
    return `[binary resource ${content.uri}: ${base64Bytes(blob)} bytes, ${content.mimeType ?? 'unknown type'}]`
  })
  const text = texts.join('\n')
  const mimeType = resource?.mimeType ?? read.contents[0]?.mimeType
  return {
    kind: 'mcp-resource',
    server,
    uri,
    name: resource?.title ?? resource?.name ?? uri,
    ...(mimeType && { mimeType }),
    text: text.slice(0, RESOURCE_TEXT_LIMIT),
    ...(text.length > RESOURCE_TEXT_LIMIT && { truncated: true }),
  }
}

/** The prompt's messages' text in order; what is not text is named, so the person sees it was there. */
function promptText(result: GetPromptResult): string {
  return result.messages
    .map(({ content }) => {
      switch (content.type) {
        case 'text':
          return content.text
        case 'resource':
          return 'text' in content.resource ? content.resource.text : `[resource ${content.resource.uri}]`
        case 'resource_link':
          return `[resource ${content.uri}]`
        default:
          return `[${content.type}, ${content.mimeType}]`
      }
    })
    .join('\n\n')
}

function base64Bytes(base64: string): number {
  const padding = base64.endsWith('==') ? 2 : base64.endsWith('=') ? 1 : 0
  return Math.max(0, Math.floor((base64.length * 3) / 4) - padding)
}
