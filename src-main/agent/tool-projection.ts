/**
 * What a chat's turns offer the model: the enabled tools (MCP servers' included, connected on the
 * way), narrowed by the agent profile, the approval mode and the project folder — and the same list
 * as the chat's provider receives it, for the capabilities view. The inspector and a turn share it,
 * so what the view shows is what the turn sends.
 */
import { type ApprovalMode, offersOnlyReads } from '../../src-shared/approvals'
import type { Capabilities, Chat, WebSearchInEffect } from '../../src-shared/contract'
import type { InstructionFileInfo } from '../../src-shared/instructions'
import type { McpServerStatus } from '../../src-shared/mcp'
import type { AgentProfile } from '../../src-shared/providers'
import type { ServiceDiscovery } from '../../src-shared/tool-services'
import type { ChatService } from '../chats/chat-service'
import type { ProviderService, ResolvedProvider } from '../providers/provider-service'
import { wireToolsWithTokens } from '../providers/tool-mapper'
import { TASK_TOOL, taskDescription } from '../tools/builtin/task'
import { engineOf } from '../tools/builtin/web-search'
import { enabledToolDefinitions, type ToolProjection } from '../tools/projection'
import type { ToolRegistry } from '../tools/registry'
import type { ToolSettingsService } from '../tools/tool-settings-service'
import { WEB_SEARCH_TOOL } from '../tools/web-search/search-engines'
import type { AgentProfileService } from './agent-profiles'
import { type InstructionFile, instructionFileInfo } from './project-instructions'

export interface ToolProjectionDeps {
  chats: ChatService
  providers: ProviderService
  profiles: AgentProfileService
  registry: ToolRegistry
  toolSettings: ToolSettingsService
  /**
   * Brings into the registry what a turn in this project folder may use: custom tool folders,
   * the enabled MCP servers (connected now), tool services.
   */
  prepareTools: (folder: string | null) => Promise<PreparedTools>
  /** The project's instruction files a chat's next turn carries. */
  instructions?: (chat: Chat) => InstructionFile[]
  /** Whether a tool is offered in this folder at all (the code tools need a language server for its files); all are by default. */
  offers?: (name: string, folder: string | null) => boolean
  /** The language servers that serve a folder, for the capabilities view. */
  languageServers?: (folder: string | null) => Capabilities['languageServers']
  user: string
}

/** What preparing a turn's tools found. */
export interface PreparedTools {
  /** The enabled MCP servers (and tool services a turn goes without) as connecting them went. */
  servers: McpServerStatus[]
  /** The broker had just connected: how long the turn waited for the services' announcements. */
  discovery?: ServiceDiscovery
}

/** What else narrows a turn's tools. */
export interface ProjectionLimits {
  /** The provider searches the web itself: the web_search tool is left out. */
  hostedSearch?: boolean
  /** The most the turn may offer (a subagent's turn: its parent's tools). */
  within?: ReadonlySet<string> | undefined
}

/** What a chat's next turn would run with: its provider, profile, approval mode and tools. */
export interface NextTurn {
  chat: Chat
  provider: ResolvedProvider
  profile: AgentProfile
  approvalMode: ApprovalMode
  projection: ToolProjection
}

export class ToolProjectionService {
  constructor(private readonly deps: ToolProjectionDeps) {}

  /**
   * The tools a turn offers: enabled ones, narrowed to the profile's list when it has one, to
   * reading tools in Read only and Plan modes, to those a tool names as its modes (propose_plan:
   * Plan only), to the custom tools of this project folder (with the person's own), and to
   * `within` when given (a subagent's turn: its parent's tools). `task` comes only when a profile
   * takes tasks, and lists them.
   */
  async projection(
    profile: AgentProfile,
    approvalMode: ApprovalMode = profile.approvalMode,
    folder: string | null = null,
    { hostedSearch = false, within }: ProjectionLimits = {},
  ): Promise<ToolProjection> {
    const { registry } = this.deps
    // MCP servers connect now, not at start-up: a turn (or the inspector) is what needs their tools.
    const { servers, discovery } = await this.deps.prepareTools(folder)
    const enabled = enabledToolDefinitions(registry, this.deps.toolSettings, this.deps.user)
    const allowed = profile.tools && new Set(profile.tools)
    const delegable = this.deps.profiles.delegable()
    const filtered = enabled.filter(({ name }) => {
      const entry = registry.get(name)
      const project = entry?.source.kind === 'custom' ? entry.source.project : undefined
      return (
        // The provider searches itself: a second search tool would only make the model choose.
        !(hostedSearch && name === WEB_SEARCH_TOOL && entry?.source.kind === 'builtin') &&
        (!allowed || allowed.has(name)) &&
        (!within || within.has(name)) &&
        (name !== TASK_TOOL || delegable.length > 0) &&
        (!offersOnlyReads(approvalMode) || entry?.tool.kind === 'read') &&
        (!entry?.tool.modes || entry.tool.modes.includes(approvalMode)) &&
        (project === undefined || project === folder) &&
        (this.deps.offers?.(name, folder) ?? true)
      )
    })
    const definitions = filtered.map((definition) =>
      definition.name === TASK_TOOL ? { ...definition, description: taskDescription(delegable) } : definition,
    )
    return {
      definitions,
      offered: new Set(definitions.map((definition) => definition.name)),
      servers,
      runsCommands: definitions.some(({ name }) => registry.get(name)?.tool.kind === 'execute'),
      ...(discovery && { discovery }),
    }
  }

  /** The chat's next turn as it would be set up now. */
  async nextTurn(id: string): Promise<NextTurn> {
    const chat = this.deps.chats.get(id)
    const provider = this.deps.providers.forChat(chat)
    const profile = this.deps.profiles.forChat(chat.agent)
    const approvalMode = effectiveApprovalMode(chat, profile)
    const hostedSearch = provider.config.hostedSearch === true
    const projection = await this.projection(profile, approvalMode, projectFolder(chat), { hostedSearch })
    return { chat, provider, profile, approvalMode, projection }
  }

  /** The project's instruction files the chat's next turn carries, as the header shows them. */
  instructions(chat: Chat): InstructionFileInfo[] {
    return (this.deps.instructions?.(chat) ?? []).map(instructionFileInfo)
  }

  /** The contract's `chats.capabilities`: the tools the chat's next turn would send, in its provider's format. */
  async capabilities({ id }: { id: string }): Promise<Capabilities> {
    const { chat, provider, projection } = await this.nextTurn(id)
    const { definitions, servers } = projection
    const tools = wireToolsWithTokens(provider.config.kind, definitions).map((tool) => {
      const source = this.deps.registry.get(tool.name)?.source
      if (source?.kind === 'mcp') return { ...tool, server: source.server }
      if (source?.kind === 'custom') return { ...tool, module: source.module }
      return source?.kind === 'service' ? { ...tool, service: source.service } : tool
    })
    return {
      provider: { kind: provider.config.kind, name: provider.name },
      model: provider.model,
      webSearch: this.webSearchInEffect(provider, projection),
      tools,
      totalTokens: tools.reduce((sum, tool) => sum + tool.tokens, 0),
      servers,
      instructions: this.instructions(chat),
      ...(this.deps.languageServers && { languageServers: this.deps.languageServers(projectFolder(chat)) }),
    }
  }

  /** Which web search the turn has: the provider's own, the web_search tool with its engine, or none. */
  private webSearchInEffect(provider: ResolvedProvider, projection: ToolProjection): WebSearchInEffect {
    if (provider.config.hostedSearch) return { kind: 'hosted' }
    const entry = this.deps.registry.get(WEB_SEARCH_TOOL)
    if (!projection.offered.has(WEB_SEARCH_TOOL) || entry?.source.kind !== 'builtin') return { kind: 'none' }
    const { parameters } = this.deps.toolSettings.resolve(this.deps.user, entry).settings
    return { kind: 'tool', engine: engineOf(parameters) }
  }
}

/** The folder a chat works in: its bound folder in agent mode, none in chat mode. */
export function projectFolder(chat: Chat): string | null {
  return chat.mode === 'agent' ? chat.workingDir : null
}

/** The chat's own mode, else its profile's. */
export function effectiveApprovalMode(chat: Chat, profile: AgentProfile): ApprovalMode {
  return chat.approvalMode ?? profile.approvalMode
}
