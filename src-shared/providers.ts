/** Providers (where a model runs) and agent profiles (how it behaves), as the settings panel edits them. */
import { type Static, Type } from '@sinclair/typebox'
import { ChatMode, ProviderKind } from './agent'
import { ApprovalMode } from './approvals'

const Name = Type.String({ minLength: 1, maxLength: 100, pattern: '\\S' })
const OptionalUrl = Type.Union([Type.String({ pattern: '^https?://\\S+$', maxLength: 2000 }), Type.Null()])
const ModelName = Type.String({ minLength: 1, maxLength: 200 })

/** A model's context window in tokens, as a person may set it. */
export const ContextWindow = Type.Integer({ minimum: 1024, maximum: 100_000_000 })

export const ProviderInfo = Type.Object({
  id: Type.String(),
  kind: ProviderKind,
  name: Type.String(),
  /** null: the provider's public endpoint. */
  baseUrl: Type.Union([Type.String(), Type.Null()]),
  defaultModel: Type.Union([Type.String(), Type.Null()]),
  /**
   * The key its requests carry; the key itself never leaves the main process. `environment` only at
   * the kind's official endpoint (see `isOfficialEndpoint`): another address gets its stored key or none.
   */
  keySource: Type.Union([Type.Literal('stored'), Type.Literal('environment'), Type.Literal('none')]),
  /** The environment variable its key comes from (with keySource `environment`), else the one the kind reads. */
  keyVariable: Type.String(),
  /** The context window set for its models, in tokens; null: from the model listing or the table. */
  contextWindow: Type.Union([ContextWindow, Type.Null()]),
  /**
   * The provider's own web search is switched on: its turns ask the provider to search on its
   * servers (see `hasHostedSearch`), in place of the `web_search` tool.
   */
  hostedSearch: Type.Boolean(),
})
export type ProviderInfo = Static<typeof ProviderInfo>

/**
 * Whether a kind's wire format has the provider's own web search: the Responses API's `web_search`
 * tool, Gemini's Google Search grounding, Anthropic's `web_search` server tool. Chat Completions has
 * none (nor do the local servers that speak it): there the `web_search` tool searches instead.
 */
export function hasHostedSearch(kind: ProviderKind): boolean {
  return kind !== 'openai-chat'
}

/** The host of each kind's official API: the only place a key from the environment is sent. */
export const OFFICIAL_HOSTS: Record<ProviderKind, string> = {
  'openai-responses': 'api.openai.com',
  'openai-chat': 'api.openai.com',
  gemini: 'generativelanguage.googleapis.com',
  anthropic: 'api.anthropic.com',
}

/**
 * Whether a provider of this kind at this base URL (none: the SDK's default) talks to the kind's
 * official API. OPENAI_API_KEY is a secret meant for OpenAI, not for whoever typed an address into
 * a provider form. Matched as text, without a URL parser (none exists in this layer): only
 * `https://HOST`, optionally `:443`, then nothing or a path, query or fragment — so userinfo
 * (`https://api.openai.com@evil.example`), look-alike hosts and plain http never qualify.
 */
export function isOfficialEndpoint(kind: ProviderKind, baseUrl: string | null | undefined): boolean {
  if (!baseUrl) return true
  const host = OFFICIAL_HOSTS[kind].replaceAll('.', '\\.')
  return new RegExp(`^https://${host}(?::443)?(?:[/?#]|$)`, 'i').test(baseUrl)
}

/** Where a provider's requests go, as a person reads it: the official host, else the server's scheme, host and port. */
export function endpointLabel(kind: ProviderKind, baseUrl: string | null | undefined): string {
  if (isOfficialEndpoint(kind, baseUrl)) return OFFICIAL_HOSTS[kind]
  return /^https?:\/\/[^/?#]+/i.exec(baseUrl ?? '')?.[0] ?? baseUrl ?? ''
}

/**
 * Whether two base URLs of a kind reach the same server: the official API both, or the same scheme,
 * host and port as written (a path is the provider's business; another server is someone else).
 */
export function sameServer(kind: ProviderKind, a: string | null, b: string | null): boolean {
  return endpointLabel(kind, a).toLowerCase() === endpointLabel(kind, b).toLowerCase()
}

/** Between the provider's own words and what Atelier adds about them, in a provider error's message. */
const AFTER_PROVIDER_WORDS = ' — '

/**
 * A provider error's message: the provider's own words first ("upstream overloaded (500)"), so an
 * alert's first line and a retry notice say why, then who said them and what that means.
 */
export function providerMessage(words: string, context: string): string {
  return `${words}${AFTER_PROVIDER_WORDS}${context}`
}

/**
 * The provider's own words of a message `providerMessage` made; undefined for any other message.
 * The context Atelier adds never holds the separator, so the last one ends the provider's words.
 */
export function providerWords(message: string): string | undefined {
  const end = message.lastIndexOf(AFTER_PROVIDER_WORDS)
  return end > 0 ? message.slice(0, end) : undefined
}

export const KeyStorage = Type.Object({
  /** Whether keys can be stored at all (the desktop app with an OS keychain). */
  available: Type.Boolean(),
  /** The OS offers no keychain, so "encrypted" keys would be readable by anyone with the file. */
  plainText: Type.Boolean(),
  /**
   * The key variables set in the environment Atelier started in — names only, never values — so the
   * form can say what a provider it is adding would send, and where.
   */
  environmentKeys: Type.Array(Type.String()),
})
export type KeyStorage = Static<typeof KeyStorage>

export const ProvidersList = Type.Object({ providers: Type.Array(ProviderInfo), keyStorage: KeyStorage })

export const CreateProviderBody = Type.Object(
  {
    kind: ProviderKind,
    name: Name,
    baseUrl: Type.Optional(OptionalUrl),
    defaultModel: Type.Optional(Type.Union([ModelName, Type.Null()])),
    /** Stored encrypted; omit to use the environment variable. */
    apiKey: Type.Optional(Type.String({ minLength: 1, maxLength: 1000 })),
    contextWindow: Type.Optional(Type.Union([ContextWindow, Type.Null()])),
    /** Switches the provider's own web search on (kinds that have one; see `hasHostedSearch`). */
    hostedSearch: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
)
export type CreateProviderBody = Static<typeof CreateProviderBody>

/**
 * A provider's settings as the form holds them, unsaved, for Test connection: the kind, the address
 * and a key typed into the form. `id`, when editing, lets the stored key be used — only at the
 * server it was stored for, as on a saved provider.
 */
export const TestProviderBody = Type.Object(
  {
    kind: ProviderKind,
    baseUrl: Type.Optional(OptionalUrl),
    apiKey: Type.Optional(Type.String({ minLength: 1, maxLength: 1000 })),
    id: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    /** The model typed in the form: what a chat is tried with when the server lists no models. */
    model: Type.Optional(ModelName),
  },
  { additionalProperties: false },
)
export type TestProviderBody = Static<typeof TestProviderBody>

/**
 * What Test connection found: the models listed, or none with `unlisted` when the server lists no
 * models but answers a chat (the model's name then has to be typed).
 */
export const ProviderTestResult = Type.Object({
  models: Type.Array(Type.String()),
  unlisted: Type.Optional(Type.Literal(true)),
})
export type ProviderTestResult = Static<typeof ProviderTestResult>

export const UpdateProviderBody = Type.Object(
  {
    id: Type.String({ minLength: 1 }),
    name: Type.Optional(Name),
    baseUrl: Type.Optional(OptionalUrl),
    defaultModel: Type.Optional(Type.Union([ModelName, Type.Null()])),
    /** A new key to store, or null to forget the stored one and use the environment again. */
    apiKey: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 1000 }), Type.Null()])),
    contextWindow: Type.Optional(Type.Union([ContextWindow, Type.Null()])),
    hostedSearch: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
)
export type UpdateProviderBody = Static<typeof UpdateProviderBody>

export const AgentProfile = Type.Object({
  id: Type.String(),
  name: Type.String(),
  systemPrompt: Type.String(),
  /** The tools this profile may use, among the enabled ones; null: every enabled tool. */
  tools: Type.Union([Type.Array(Type.String()), Type.Null()]),
  defaultMode: ChatMode,
  /** The approval mode of a chat that has not chosen its own. */
  approvalMode: ApprovalMode,
  /** The built-in profile cannot be edited or deleted. */
  builtin: Type.Boolean(),
  /** One line on what the profile is for: what the `task` tool's description tells the model of it. */
  description: Type.String(),
  /** Whether the agent may hand work to it as a subagent (the `task` tool). */
  delegable: Type.Boolean(),
})
export type AgentProfile = Static<typeof AgentProfile>

const ProfileFields = {
  name: Name,
  systemPrompt: Type.String({ maxLength: 100_000 }),
  tools: Type.Union([
    Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { maxItems: 500 }),
    Type.Null(),
  ]),
  defaultMode: ChatMode,
  approvalMode: ApprovalMode,
  description: Type.String({ maxLength: 500 }),
  delegable: Type.Boolean(),
}
export const CreateAgentProfileBody = Type.Object(
  {
    ...ProfileFields,
    tools: Type.Optional(ProfileFields.tools),
    defaultMode: Type.Optional(ChatMode),
    approvalMode: Type.Optional(ApprovalMode),
    description: Type.Optional(ProfileFields.description),
    delegable: Type.Optional(ProfileFields.delegable),
  },
  { additionalProperties: false },
)
export type CreateAgentProfileBody = Static<typeof CreateAgentProfileBody>
export const UpdateAgentProfileBody = Type.Object(
  { id: Type.String({ minLength: 1 }), ...Type.Partial(Type.Object(ProfileFields)).properties },
  { additionalProperties: false },
)
export type UpdateAgentProfileBody = Static<typeof UpdateAgentProfileBody>

/** The local model servers Atelier looks for, each at its usual port on this computer. */
export const LocalServerKind = Type.Union([
  Type.Literal('ollama'),
  Type.Literal('lm-studio'),
  Type.Literal('llama-cpp'),
  Type.Literal('vllm'),
])
export type LocalServerKind = Static<typeof LocalServerKind>

/** A local server that answered: its OpenAI-compatible base URL and the models it lists. */
export const DetectedServer = Type.Object({
  server: LocalServerKind,
  /** Its product's name: "Ollama", "LM Studio"… */
  name: Type.String(),
  baseUrl: Type.String(),
  models: Type.Array(
    Type.Object({
      id: Type.String(),
      /** The context window in tokens, where the server lists it. */
      contextLength: Type.Optional(Type.Integer()),
    }),
  ),
})
export type DetectedServer = Static<typeof DetectedServer>
