import type { AppInfo } from '../../src-shared/contract'
import { AtelierError, errorMessage } from '../../src-shared/errors'
import type { LocalServerKind } from '../../src-shared/providers'
import type { AgentProfileService } from '../agent/agent-profiles'
import type { ContextService } from '../agent/context/context-service'
import type { FolderMentions } from '../agent/mentions'
import type { ToolProjectionService } from '../agent/tool-projection'
import type { TurnService } from '../agent/turn-service'
import type { ApprovalService } from '../approvals/approval-service'
import type { InAppAsker } from '../approvals/askers'
import type { ChatFiles } from '../chats/chat-files'
import type { ChatService } from '../chats/chat-service'
import { listFolders, recentFolders } from '../chats/folders'
import type { CheckpointService } from '../checkpoints/checkpoint-service'
import type { SlashCommandService } from '../commands/slash-command-service'
import type { ChatSearchRepository } from '../db/chat-search-repository'
import type { UsageRepository } from '../db/usage-repository'
import type { HookService } from '../hooks/hook-service'
import type { LanguageServerService } from '../lsp/language-servers'
import type { PreferencesService } from '../preferences/preferences-service'
import type { ProviderImageGenerator } from '../providers/image-generation'
import { detectLocalServers } from '../providers/local-servers'
import type { PriceService } from '../providers/price-service'
import type { ProviderService } from '../providers/provider-service'
import type { CustomToolService } from '../tools/custom/custom-tool-service'
import type { CustomToolSessions } from '../tools/custom/session-relay'
import type { McpCatalog } from '../tools/mcp/mcp-catalog'
import type { McpServerService } from '../tools/mcp/mcp-server-service'
import { folderIsMissing } from '../tools/pipeline/folder'
import type { ToolPlayground } from '../tools/playground'
import type { CommandSandbox } from '../tools/sandbox/command-sandbox'
import type { ToolServiceService } from '../tools/services/tool-service-service'
import type { ToolSettingsService } from '../tools/tool-settings-service'
import type { ContractHandlers } from './dispatcher'

export interface HandlerServices {
  info: AppInfo
  chats: ChatService
  /** Full-text search over every chat's messages. */
  chatSearch: ChatSearchRepository
  chatFiles: ChatFiles
  preferences: PreferencesService
  toolSettings: ToolSettingsService
  providers: ProviderService
  prices: PriceService
  usage: UsageRepository
  profiles: AgentProfileService
  agent: TurnService
  projection: ToolProjectionService
  context: ContextService
  approvals: ApprovalService
  /** Questions to the person, answered in the app. */
  questions: InAppAsker
  sandbox: CommandSandbox
  checkpoints: CheckpointService
  /** The composer's `/` commands. */
  commands: SlashCommandService
  /** The person's hooks: Settings → Hooks. */
  hooks: HookService
  languageServers: LanguageServerService
  images: ProviderImageGenerator
  playground: ToolPlayground
  mcp: McpServerService
  /** The MCP servers' resources and prompts. */
  mcpCatalog: McpCatalog
  /** Files of a chat's folder, for the composer's `@`. */
  mentions: FolderMentions
  services: ToolServiceService
  customTools: CustomToolService
  /** Tells custom tools of a fork and of the app opening another chat. */
  customToolSessions: CustomToolSessions
  /** The OS folder dialog; only the desktop app has one. */
  pickFolder?: () => Promise<string | null>
  /** Where Detect local servers looks, by server: each one's usual port unless given (tests give their own). */
  localServerPorts?: Partial<Record<LocalServerKind, number>>
  /** Whose settings the calls read and write. */
  user: string
}

/** Binds every contract method to the service that answers it. */
export function createHandlers({
  info,
  chats,
  chatSearch,
  chatFiles,
  preferences,
  toolSettings,
  providers,
  prices,
  usage,
  profiles,
  agent,
  projection,
  context,
  approvals,
  questions,
  sandbox,
  checkpoints,
  commands,
  hooks,
  languageServers,
  images,
  playground,
  mcp,
  mcpCatalog,
  mentions,
  services,
  customTools,
  customToolSessions,
  pickFolder,
  localServerPorts,
  user,
}: HandlerServices): ContractHandlers {
  return {
    'app.info': () => info,
    'chats.list': () => chats.list(),
    'chats.create': (request) => chats.create(request),
    'chats.rename': (request) => chats.rename(request),
    'chats.delete': (request) => chats.delete(request),
    'chats.fork': async (request) => {
      const fork = await checkpoints.fork(request)
      customToolSessions.forked(request.id, fork.chat)
      return fork
    },
    'chats.search': (request) => ({ results: chatSearch.find(request) }),
    'chats.pin': (request) => chats.pin(request),
    'chats.archive': (request) => chats.archive(request),
    'chats.export': (request) => chatFiles.export(request),
    'chats.import': (request) => chatFiles.import(request),
    'chats.discardIfEmpty': (request) => chats.discardIfEmpty(request),
    // Choosing a profile switches the chat to that profile's mode, unless a mode is given too.
    'chats.configure': (request) => {
      const chat = chats.configure(
        request.agent && request.mode === undefined
          ? { ...request, mode: profiles.get(request.agent).defaultMode }
          : request,
      )
      // A folder bound is snapshotted at once, in the background: the first turn need not wait.
      if (chat.mode === 'agent') checkpoints.warm(chat.workingDir)
      return chat
    },
    'chats.messages': (request) => {
      const chat = chats.get(request.id)
      // A subagent's conversation opens inside its task's card, in the chat the person is in.
      if (chat.parentChatId === undefined) customToolSessions.opened(chat.id)
      if (chat.mode === 'agent') checkpoints.warm(chat.workingDir)
      return agent.view(request)
    },
    'chats.capabilities': (request) => projection.capabilities(request),
    'chats.instructions': ({ id }) => ({ files: projection.instructions(chats.get(id)) }),
    'chats.context': (request) => context.status(request),
    'chats.compact': (request) => agent.compact(request),
    'folders.list': (request) => listFolders(request.path, info.home),
    'folders.recent': () => recentFolders(chats.list()),
    'folders.files': (request) => mentions.files(request),
    'folders.status': ({ chatId }) => {
      const folder = chats.get(chatId).workingDir
      return { missing: folder !== null && folderIsMissing(folder) }
    },
    'folders.pick': async () => {
      if (!pickFolder)
        throw new AtelierError('unsupported', 'Picking a folder with the OS dialog needs the desktop app.')
      return { path: await pickFolder() }
    },
    'tools.run': (request) => playground.run(request),
    'tools.stop': (request) => playground.stop(request),
    'images.read': (request) => images.read(request.path),
    'turns.start': (request) => agent.start(request),
    'commands.list': (request) => commands.list(request),
    'turns.stop': (request) => agent.stop(request),
    'turns.retry': (request) => agent.retryTurn(request),
    'turns.edit': (request) => agent.edit(request),
    'turns.regenerate': (request) => agent.regenerate(request),
    'calls.answer': (request) => questions.answer(request),
    'permissions.list': () => approvals.list(),
    'permissions.add': (request) => approvals.add(request),
    'permissions.update': (request) => approvals.update(request),
    'permissions.remove': (request) => approvals.remove(request),
    'providers.list': () => ({ providers: providers.list(), keyStorage: providers.keyStorage() }),
    'providers.create': (request) => providers.create(request),
    'providers.update': (request) => providers.update(request),
    'providers.delete': (request) => providers.delete(request),
    'providers.models': (request) => providers.models(request),
    'providers.test': (request) => providers.test(request),
    'providers.detectLocal': () => detectLocalServers(localServerPorts),
    'prices.list': (request) => prices.list(request),
    'prices.set': (request) => prices.set(request),
    'prices.reset': (request) => prices.reset(request),
    'usage.report': ({ days }) => usage.report(days),
    'usage.chat': ({ chatId }) => usage.chat(chatId),
    'agents.list': () => profiles.list(),
    'agents.create': (request) => profiles.create(request),
    'agents.update': (request) => profiles.update(request),
    'agents.delete': (request) => profiles.delete(request),
    'mcp.list': () => mcp.list(),
    'mcp.add': (request) => mcp.add(request, { approve: false }),
    'mcp.update': ({ name, server }) => mcp.update(name, server),
    'mcp.approve': ({ name }) => mcp.approve(name),
    'mcp.setEnabled': ({ name, enabled }) => mcp.setEnabled(name, enabled, { approve: false }),
    'mcp.remove': async ({ name }) => {
      await mcp.remove(name)
      return { name }
    },
    'mcp.import': ({ json }) => mcp.import(json),
    'mcp.signIn': ({ name }) => mcp.signIn(name),
    'mcp.signOut': ({ name }) => mcp.signOut(name),
    'mcp.resources': () => mcpCatalog.resources(),
    'mcp.prompts': () => mcpCatalog.prompts(),
    'mcp.getPrompt': (request) => mcpCatalog.getPrompt(request),
    'mcp.stderr': ({ name }) => ({ text: mcp.stderr(name) }),
    'services.list': () => services.list(),
    'services.connect': () => services.connect(),
    'services.add': ({ json }) => services.add(parseJson(json)),
    'services.remove': ({ id }) => services.remove(id),
    'services.setEnabled': ({ id, enabled, version }) => services.setEnabled(id, enabled, version),
    'services.broker': () => services.brokerInfo(),
    'services.setBroker': (request) => services.setBroker(request),
    'customTools.list': ({ folder }) => customTools.list(folder ?? null),
    'customTools.load': ({ folder }) => customTools.load(folder ?? null),
    'customTools.reload': ({ folder }) => customTools.reload(folder ?? null),
    'customTools.log': ({ file }) => customTools.log(file),
    'customTools.setEnvironment': ({ folder, names }) => customTools.setEnvironment(folder, names),
    'hooks.list': (request) => hooks.list(request),
    'hooks.add': (request) => hooks.add(request),
    'hooks.update': (request) => hooks.update(request),
    'hooks.remove': (request) => hooks.remove(request),
    'hooks.test': (request) => hooks.test(request),
    'hooks.runs': (request) => hooks.runs(request),
    'hooks.import': (request) => hooks.import(request),
    'folders.trust': ({ folder }) => customTools.trust(folder),
    'folders.untrust': ({ folder }) => customTools.untrust(folder),
    'checkpoints.list': (request) => checkpoints.list(request),
    'checkpoints.changes': (request) => checkpoints.changes(request),
    'checkpoints.undo': (request) => checkpoints.undo(request),
    'checkpoints.rewind': (request) => checkpoints.rewind(request),
    'preferences.get': () => preferences.get(),
    'sandbox.status': () => sandbox.info(),
    'lsp.status': () => ({ servers: languageServers.status() }),
    'lsp.test': (request) => languageServers.test(request),
    'preferences.update': (request) => preferences.update(request),
    'tools.list': () => toolSettings.list(user),
    'tools.update': ({ name, ...body }) => toolSettings.update(user, name, body),
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch (error) {
    throw new AtelierError('invalid_descriptor', `Not JSON: ${errorMessage(error)}`)
  }
}
