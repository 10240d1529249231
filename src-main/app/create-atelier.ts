import { mkdirSync } from 'node:fs'
import { homedir } from 'node:os'
import { join } from 'node:path'
import packageJson from '../../package.json'
import type { Chat, EventPayload } from '../../src-shared/contract'
import type { LocalServerKind } from '../../src-shared/providers'
import { AgentProfileService } from '../agent/agent-profiles'
import { readAttachments } from '../agent/attachments'
import { ContextService } from '../agent/context/context-service'
import { answerInterruptedCommands } from '../agent/interrupted-commands'
import { FolderMentions } from '../agent/mentions'
import { chatInstructions, instructionOptions, instructionsText } from '../agent/project-instructions'
import { SubagentService } from '../agent/subagents'
import { subfolderInstructionsHook } from '../agent/subfolder-instructions'
import { projectFolder, ToolProjectionService } from '../agent/tool-projection'
import { type StartedTurn, TurnService } from '../agent/turn-service'
import { ApprovalService } from '../approvals/approval-service'
import { InAppAsker } from '../approvals/askers'
import { ChatFiles } from '../chats/chat-files'
import { ChatService } from '../chats/chat-service'
import { CheckpointService } from '../checkpoints/checkpoint-service'
import { SlashCommandService } from '../commands/slash-command-service'
import { AtelierEvents } from '../core/events'
import { LocalSecretStore } from '../core/local-secret-store'
import { SealedSecrets } from '../core/sealed-secrets'
import { AgentProfilesRepository } from '../db/agent-profiles-repository'
import { AppSettingsRepository } from '../db/app-settings-repository'
import { ChatImports } from '../db/chat-imports'
import { ChatSearchRepository } from '../db/chat-search-repository'
import { ChatsRepository } from '../db/chats-repository'
import { CheckpointsRepository } from '../db/checkpoints-repository'
import { ConversationForks } from '../db/conversation-forks'
import { ConversationRepository } from '../db/conversation-repository'
import { type Database, openDatabase } from '../db/database'
import { FreshnessRepository } from '../db/freshness-repository'
import { InstructionFilesRepository } from '../db/instruction-files-repository'
import { McpOAuthCredentialsRepository } from '../db/mcp-oauth-credentials-repository'
import { McpServersRepository } from '../db/mcp-servers-repository'
import { ModelPricesRepository } from '../db/model-prices-repository'
import { PermissionRulesRepository } from '../db/permission-rules-repository'
import { ProvidersRepository } from '../db/providers-repository'
import { RunningCommandsRepository } from '../db/running-commands-repository'
import { ToolServicesRepository } from '../db/tool-services-repository'
import { ToolSettingsRepository } from '../db/tool-settings-repository'
import { UsageRepository } from '../db/usage-repository'
import { hooksFileIn } from '../hooks/hook-files'
import { HookService } from '../hooks/hook-service'
import { postToolUseHook, preToolUseHook } from '../hooks/tool-hooks'
import { TurnHooks } from '../hooks/turn-hooks'
import { createDispatcher, type Dispatch } from '../ipc/dispatcher'
import { createHandlers } from '../ipc/handlers'
import { EditDiagnostics } from '../lsp/edit-diagnostics'
import { LanguageServerService } from '../lsp/language-servers'
import { PreferencesService } from '../preferences/preferences-service'
import { ProviderImageGenerator } from '../providers/image-generation'
import { PriceService } from '../providers/price-service'
import { ProviderService, type SecretStore } from '../providers/provider-service'
import type { RetryPolicy } from '../providers/retry'
import { builtinTools } from '../tools/builtin'
import { CODE_TOOLS } from '../tools/code-intelligence'
import { CommandJournal } from '../tools/command-journal'
import { CustomToolService } from '../tools/custom/custom-tool-service'
import { FolderTrust } from '../tools/custom/folder-trust'
import { CustomToolSessions, toolMessage } from '../tools/custom/session-relay'
import type { SpawnHost } from '../tools/custom/tool-host-process'
import { ToolExecutor } from '../tools/executor'
import { McpCatalog } from '../tools/mcp/mcp-catalog'
import { McpServerService } from '../tools/mcp/mcp-server-service'
import { McpServerStore } from '../tools/mcp/mcp-server-store'
import { ToolPlayground } from '../tools/playground'
import type { ToolRegistry } from '../tools/registry'
import { CommandSandbox } from '../tools/sandbox/command-sandbox'
import type { Sandbox } from '../tools/sandbox/sandbox'
import { searchCacheKeeper } from '../tools/search/search-call'
import { ToolServiceService } from '../tools/services/tool-service-service'
import { ToolSettingsService } from '../tools/tool-settings-service'
import { removeTemporaryFilesOfEndedProcesses } from '../tools/unfinished-writes'
import type { SearchEndpoints } from '../tools/web-search/search-engines'
import { PRODUCT_NAME } from './data-dir'

export const DATABASE_FILE = 'atelier.db'
/** Generated images, one subfolder per chat. */
export const IMAGES_FOLDER = 'images'
/** The desktop app has one user; the column exists for the envelope's user and a multi-user host. */
export const LOCAL_USER = 'local'
/** How long after the start old checkpoints are dropped. */
const PRUNE_DELAY_MS = 60_000
export const APP_VERSION: string = packageJson.version

export interface AtelierOptions {
  /** Folder for the database and everything else Atelier keeps; created when missing. */
  dataDir: string
  /** A `better_sqlite3.node` for this runtime; Electron passes its own ABI build. */
  nativeBinding?: string
  /** The tools this instance offers; by default its own copy of the built-ins. */
  registry?: ToolRegistry
  /** Encrypts stored API keys; only the desktop app has one (Electron's safeStorage). */
  secrets?: SecretStore
  /** Where provider keys are read from; the process environment by default. */
  env?: NodeJS.ProcessEnv
  /** The OS folder dialog (Electron's); without it the renderer browses folders itself. */
  pickFolder?: () => Promise<string | null>
  /** Where Detect local servers looks, by server: each one's usual port unless given (tests give their own). */
  localServerPorts?: Partial<Record<LocalServerKind, number>>
  /** How provider failures are retried (tests shorten the waits). */
  retry?: RetryPolicy
  /**
   * Whether a person watches: the desktop app and the web host. Custom tools see it as `hasUI`,
   * and only then may they ask the person to confirm a pending action.
   */
  hasUI?: boolean
  /** Starts a custom tool host; by default Node's fork (the desktop app uses a utility process). */
  spawnToolHost?: SpawnHost
  /** Where the person's own tool folders are looked for (`~/.atelier/tools`, …); the OS home by default. */
  home?: string
  /**
   * Opens a URL in the system browser (the desktop app's shell): an MCP server's sign-in page.
   * Without it (the CLI, the web host) the URL is handed back to be shown.
   */
  openExternal?: (url: string) => boolean | Promise<boolean>
  /** How long an MCP sign-in waits for the browser to come back; 5 minutes by default (tests shorten it). */
  mcpSignInTimeoutMs?: number
  /** Finds the platform's sandbox; by default a probe of this machine (tests stand in a missing one). */
  detectSandbox?: () => Promise<Sandbox>
  /**
   * Whether the system shows dark now (Electron's nativeTheme), for the `system` theme as custom
   * tools' render hooks see it; light where nobody can tell (the CLI, the web host).
   */
  systemDark?: () => boolean
  /**
   * Where web_search's keyed engines are, in place of their public APIs: for tests, at local fakes.
   * Only code passes it, so no setting can send a key to another server.
   */
  searchEndpoints?: SearchEndpoints
}

/** Every service of the app, wired once; used alike by Electron main, the CLI, the web host and tests. */
export interface Atelier {
  dataDir: string
  db: Database
  events: AtelierEvents
  chats: ChatService
  /** Full-text search over every chat's messages. */
  chatSearch: ChatSearchRepository
  /** A chat as a file: exported (JSON, Markdown), imported. */
  chatFiles: ChatFiles
  preferences: PreferencesService
  tools: { registry: ToolRegistry; settings: ToolSettingsService; executor: ToolExecutor }
  mcp: McpServerService
  services: ToolServiceService
  customTools: CustomToolService
  providers: ProviderService
  /** What models cost: the person's prices and the defaults. */
  prices: PriceService
  /** Tokens and costs added up by chat, day and period. */
  usage: UsageRepository
  profiles: AgentProfileService
  /** Turns: started, retried, stopped; the conversation with its calls. */
  agent: TurnService
  /** What a chat's turns offer the model. */
  projection: ToolProjectionService
  /** A chat's context budget: the gauge, "Compact now". */
  context: ContextService
  approvals: ApprovalService
  /** Questions answered in the app (`calls.answer`). */
  questions: InAppAsker
  /** Confines the agent's commands. */
  sandbox: CommandSandbox
  /** Snapshots of the chats' folders around the agent's changes; undo and rewind. */
  checkpoints: CheckpointService
  /** The person's hooks: their files, their runs, and their events outside tool calls (SubagentStop). */
  hooks: { service: HookService; turns: TurnHooks }
  /** The language servers: diagnostics after edits, the code tools. */
  languageServers: LanguageServerService
  /** Validated entry point for contract calls from any transport. */
  dispatch: Dispatch
  /** Closes the database at once; settles when every MCP server (and what it started) has ended. */
  close(): Promise<void>
}

export function createAtelier({
  dataDir,
  nativeBinding,
  registry = builtinTools.clone(),
  secrets,
  env,
  pickFolder,
  localServerPorts,
  retry,
  hasUI = false,
  spawnToolHost,
  home = homedir(),
  openExternal,
  mcpSignInTimeoutMs,
  detectSandbox,
  searchEndpoints,
  systemDark,
}: AtelierOptions): Atelier {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 })
  const db = openDatabase(join(dataDir, DATABASE_FILE), { nativeBinding })
  const events = new AtelierEvents()
  const forks = new ConversationForks(db)
  const chatsRepository = new ChatsRepository(db)
  const chats = new ChatService(chatsRepository, events, forks)
  const chatSearch = new ChatSearchRepository(db)
  const preferences = new PreferencesService(new AppSettingsRepository(db), events)
  // One sealing for every secret setting: MCP servers' values and credentials, the broker's secret,
  // tools' secret parameters (web_search's API key).
  const sealed = new SealedSecrets(new LocalSecretStore(dataDir))
  const toolSettings = new ToolSettingsService(registry, new ToolSettingsRepository(db), Date.now, sealed)
  const providers = new ProviderService(new ProvidersRepository(db), events, secrets, env)
  const prices = new PriceService(new ModelPricesRepository(db), new ProvidersRepository(db))
  const usage = new UsageRepository(db)
  const sandbox = new CommandSandbox({
    settings: () => preferences.get().sandbox,
    protectedPaths: () => preferences.get().protectedPaths,
    home,
    dataDir,
    ...(detectSandbox && { detect: detectSandbox }),
  })
  const languageServers = new LanguageServerService({
    settings: () => preferences.get().codeIntelligence,
    confine: (command, folder, readable) => sandbox.confineReader(command, folder, readable),
    changed: () => events.emit('lsp.changed', {}),
  })
  // A folder no chat is bound to any more has its warm search caches dropped and its language servers ended.
  const keepSearchCaches = searchCacheKeeper()
  const keepCaches = events.subscribe((event, payload) => {
    if (event === 'preferences.changed') languageServers.endSwitchedOff()
    if (event !== 'chats.changed') return
    const { chats: all } = payload as EventPayload<'chats.changed'>
    const folders = all.flatMap((chat) => (chat.workingDir ? [chat.workingDir] : []))
    keepSearchCaches(folders)
    languageServers.keepFolders(folders)
  })
  const runningCommands = new RunningCommandsRepository(db)
  const imagesDir = join(dataDir, IMAGES_FOLDER)
  const executorServices = {
    protectedPaths: [dataDir],
    ledgers: new FreshnessRepository(db),
    images: new ProviderImageGenerator(providers, imagesDir),
    ...(searchEndpoints && { searchEndpoints }),
    sandbox,
    journal: new CommandJournal(runningCommands),
    codeIntelligence: languageServers,
  }
  // A write killed half-way (a crash, kill -9) left its temporary file in the person's folder.
  removeTemporaryFilesOfEndedProcesses()
  const tools = {
    registry,
    settings: toolSettings,
    executor: new ToolExecutor(registry, toolSettings, executorServices),
  }
  // A project's hooks run under the trust that lets its custom tools run; each run shows on its call's card.
  const hookService = new HookService({
    home,
    trust: new FolderTrust(new AppSettingsRepository(db), Date.now),
    onRun: (run) => agent.hookRan(run),
  })
  const turnHooks = new TurnHooks(hookService)
  tools.executor.addBeforeToolHook(preToolUseHook(hookService))
  tools.executor.addAfterToolHook(postToolUseHook(hookService))
  const editDiagnostics = new EditDiagnostics(languageServers, () => preferences.get().codeIntelligence)
  tools.executor.addBeforeToolHook(editDiagnostics.before, editDiagnostics.beforeWhen)
  tools.executor.addAfterToolHook(editDiagnostics.after, editDiagnostics.afterWhen)
  const mcp = new McpServerService(
    new McpServerStore(new McpServersRepository(db), sealed),
    sealed,
    registry,
    events,
    { credentials: new McpOAuthCredentialsRepository(db), openExternal, signInTimeoutMs: mcpSignInTimeoutMs },
    (command, folder, name) => sandbox.confineServer(command, folder, name),
  )
  const mcpCatalog = new McpCatalog(mcp)
  const services = new ToolServiceService({
    repository: new ToolServicesRepository(db),
    settings: new AppSettingsRepository(db),
    secrets: sealed,
    registry,
    toolSettings,
    user: LOCAL_USER,
    events,
    baseDir: process.cwd(),
    confine: (command, folder, name) => sandbox.confineServer(command, folder, name),
  })
  const customTools = new CustomToolService({
    registry,
    settings: new AppSettingsRepository(db),
    configuredPaths: () => preferences.get().customToolPaths,
    events,
    dataDir,
    hasUI,
    home,
    ...(spawnToolHost && { spawn: spawnToolHost }),
    confine: (command, folder) => sandbox.confineProgram(command, folder),
    // A project's hooks run under the same trust as its tools, as the file was when trusted.
    alsoTrusted: (project) => [hooksFileIn(project)],
    theme: () => {
      const { theme } = preferences.get()
      if (theme !== 'system') return theme
      return systemDark?.() ? 'dark' : 'light'
    },
    messages: (chatId) => conversation.messages(chatId).map(toolMessage),
  })
  const conversation = new ConversationRepository(db)
  const customToolSessions = new CustomToolSessions({
    events,
    project: (id) => projectFolder(chats.get(id)),
    turnCount: (chatId) => conversation.turns(chatId).length,
    notify: (project, event) => customTools.session(project, event),
  })
  const stopSessions = customToolSessions.start()
  // Turns left running by a process that is gone died with it.
  conversation.markInterrupted()
  answerInterruptedCommands({ db, commands: runningCommands, conversation })
  const profiles = new AgentProfileService(new AgentProfilesRepository(db), events)
  const approvals = new ApprovalService({ rules: new PermissionRulesRepository(db), preferences, events })
  // The composer's `@`: files of a chat's folder, under read_file's path policy.
  const mentions = new FolderMentions({
    chat: (id) => chats.get(id),
    readFileSettings: () => {
      const entry = registry.get('read_file')
      return entry ? toolSettings.resolve(LOCAL_USER, entry).settings : { enabled: true, parameters: {} }
    },
    protectedPaths: executorServices.protectedPaths,
  })
  // The project's AGENTS.md (and kin) as the system prompt carries them, read afresh for each turn,
  // with those of the subfolders the chat has worked in.
  const instructionFiles = new InstructionFilesRepository(db)
  const instructionOptionsNow = () => instructionOptions(preferences.get().instructions, home)
  const instructionFilesOf = (chat: Chat) =>
    chatInstructions(chat, instructionOptionsNow(), instructionFiles.list(chat.id))
  const instructions = (chat: Chat) => instructionsText(instructionFilesOf(chat))
  tools.executor.addAfterToolHook(
    subfolderInstructionsHook({ taken: instructionFiles, options: instructionOptionsNow }),
  )
  const projection = new ToolProjectionService({
    instructions: instructionFilesOf,
    chats,
    providers,
    profiles,
    registry,
    toolSettings,
    // Each turn (and the inspector) connects what it needs: MCP servers, the broker, stdio services.
    prepareTools: async (folder) => {
      await customTools.prepare(folder)
      const servers = await mcp.prepare(folder)
      const { unreachable, discovery } = await services.prepare()
      // A turn lists the tool services it goes without beside the MCP servers, in the same shape.
      const without = unreachable.map(({ id, error }) => ({
        id,
        name: id,
        connected: false,
        tools: [],
        error,
      }))
      return { servers: [...servers, ...without], ...(discovery && { discovery }) }
    },
    // The code tools are offered where a language server serves the kinds of files the folder holds.
    offers: (name, folder) => !CODE_TOOLS.has(name) || languageServers.servesFolder(folder),
    languageServers: (folder) => languageServers.serving(folder),
    user: LOCAL_USER,
  })
  const context = new ContextService({
    instructions,
    conversation,
    preferences,
    projection,
    ...(retry && { retry }),
    notifyCustomTools: (folder, event) => customTools.session(folder, event),
    sandbox,
    beforeCompaction: (chat, trigger) =>
      turnHooks.compacting({ id: chat.id, folder: projectFolder(chat) }, trigger),
    imagesDir,
  })
  const questions = new InAppAsker()
  const checkpoints = new CheckpointService({
    dataDir,
    repository: new CheckpointsRepository(db),
    forks,
    chats,
    settings: () => preferences.get().checkpoints,
    events,
  })
  // A restore a crash cut short is finished before anything else looks at its folder.
  checkpoints.resumeRestores().catch((error) => console.warn(`A restore could not be finished: ${error}`))
  // Old checkpoints go a little after the start, out of the way of the first turn.
  const pruning = setTimeout(() => {
    try {
      checkpoints.prune()
    } catch (error) {
      console.warn(`Old checkpoints could not be dropped: ${error}`)
    }
  }, PRUNE_DELAY_MS).unref()
  // A project's commands load under the trust that lets its custom tools run.
  const commands = new SlashCommandService({
    chat: (id) => chats.get(id),
    trust: new FolderTrust(new AppSettingsRepository(db), Date.now),
    home,
  })
  const subagents = new SubagentService({
    chats,
    profiles,
    preferences,
    registry,
    conversation,
    // A child turn is a turn like any: the service below begins it (it exists by the time a task runs).
    begin: (request): StartedTurn => agent.begin(request),
    subagentEnded: ({ parent, ...end }) =>
      turnHooks.subagentEnded({ chat: { id: parent.id, folder: projectFolder(parent) }, ...end }),
  })
  const agent = new TurnService({
    chats,
    conversation,
    forks,
    providers,
    profiles,
    preferences,
    projection,
    context,
    executor: tools.executor,
    approvals,
    asker: questions,
    sandbox,
    checkpoints,
    instructions,
    commands,
    subagents,
    events,
    user: LOCAL_USER,
    hooks: turnHooks,
    readAttachments: (attachments, chat) =>
      readAttachments(attachments, chat, {
        resources: (resources) => mcpCatalog.read(resources),
        file: (chat, path) => mentions.read(chat, path),
        image: async (chat, image, data) => {
          const saved = await executorServices.images.save(chat.id, data, image.mimeType)
          const name = image.name || `Pasted image.${saved.path.split('.').pop()}`
          return { kind: 'image', path: saved.path, mimeType: saved.mimeType, name, bytes: saved.bytes }
        },
      }),
    ...(retry && { retry }),
    prices,
  })
  const chatFiles = new ChatFiles({
    chats,
    conversation,
    imports: new ChatImports(db, chatsRepository),
    images: executorServices.images,
    version: APP_VERSION,
  })
  const info = { name: PRODUCT_NAME, version: APP_VERSION, dataDir, home }
  const handlers = createHandlers({
    mentions,
    images: executorServices.images,
    playground: new ToolPlayground(tools.executor, LOCAL_USER),
    mcp,
    mcpCatalog,
    services,
    customTools,
    customToolSessions,
    ...(pickFolder && { pickFolder }),
    ...(localServerPorts && { localServerPorts }),
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
    hooks: hookService,
    languageServers,
    user: LOCAL_USER,
  })
  return {
    dataDir,
    db,
    events,
    chats,
    chatSearch,
    chatFiles,
    preferences,
    tools,
    mcp,
    services,
    customTools,
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
    hooks: { service: hookService, turns: turnHooks },
    languageServers,
    dispatch: createDispatcher(handlers),
    close: () => {
      stopSessions()
      agent.close()
      clearTimeout(pruning)
      checkpoints.close()
      keepCaches()
      const serversEnded = Promise.all([
        mcp.close(),
        services.close(),
        customTools.close(),
        hookService.close(),
        languageServers.close(),
      ]).then(() => {})
      db.close()
      return serversEnded
    },
  }
}
