/**
 * Providers as settings: where a model runs (kind, base URL, default model) and where its key comes
 * from — the environment, or the OS keychain through Electron's safeStorage in the desktop app.
 * A key goes only where it belongs: one from the environment to the kind's official endpoint, one
 * stored for a provider to the address it was stored with.
 */
import { randomUUID } from 'node:crypto'
import type { ProviderKind } from '../../src-shared/agent'
import type { Chat } from '../../src-shared/contract'
import { AtelierError } from '../../src-shared/errors'
import {
  type CreateProviderBody,
  hasHostedSearch,
  isOfficialEndpoint,
  type KeyStorage,
  type ProviderInfo,
  type ProviderTestResult,
  sameServer,
  type TestProviderBody,
  type UpdateProviderBody,
} from '../../src-shared/providers'
import type { AtelierEvents } from '../core/events'
import type { ProvidersRepository, StoredProvider } from '../db/providers-repository'
import { createProviderAdapter } from './adapters'
import { toProviderError } from './provider-error'
import type { ProviderAdapter, ProviderConfig } from './types'

/** Encrypts keys at rest; Electron main passes one backed by safeStorage. */
export interface SecretStore {
  /** The OS stores the secret key in plain text (Linux without a keyring): warn the person. */
  readonly plainText: boolean
  encrypt(text: string): Buffer
  decrypt(data: Buffer): string
}

/** The environment variables read for each kind, first found wins. */
export const KEY_VARIABLES: Record<ProviderKind, readonly string[]> = {
  'openai-responses': ['OPENAI_API_KEY'],
  'openai-chat': ['OPENAI_API_KEY'],
  gemini: ['GEMINI_API_KEY', 'GOOGLE_API_KEY'],
  anthropic: ['ANTHROPIC_API_KEY'],
}

/** Used when neither the chat nor the provider names a model. OpenAI-compatible servers have none. */
export const DEFAULT_MODELS: Record<ProviderKind, string | null> = {
  'openai-responses': 'gpt-5-mini',
  'openai-chat': null,
  gemini: 'gemini-2.5-flash',
  anthropic: 'claude-sonnet-4-5',
}

const KIND_NAMES: Record<ProviderKind, string> = {
  'openai-responses': 'OpenAI',
  'openai-chat': 'OpenAI-compatible',
  gemini: 'Gemini',
  anthropic: 'Anthropic',
}

/** What a turn needs to reach a model. */
export interface ResolvedProvider {
  /** The stored provider's id; the kind's name for one made up from the environment. */
  id: string
  config: ProviderConfig
  model: string
  /** The provider's name, for messages. */
  name: string
  /** The context window set for it in Settings, if any. */
  contextWindow: number | null
}

export interface ProviderOverrides {
  baseUrl?: string
  model?: string
  /** Switches the provider's own web search on or off for this turn (`atelier run --hosted-search`). */
  hostedSearch?: boolean
}

export class ProviderService {
  constructor(
    private readonly repository: ProvidersRepository,
    private readonly events: AtelierEvents,
    private readonly secrets: SecretStore | undefined,
    private readonly env: NodeJS.ProcessEnv = process.env,
    private readonly now: () => number = Date.now,
  ) {}

  keyStorage(): KeyStorage {
    const variables = new Set(Object.values(KEY_VARIABLES).flat())
    return {
      available: this.secrets !== undefined,
      plainText: this.secrets?.plainText ?? false,
      environmentKeys: [...variables].filter((variable) => this.env[variable]?.trim()),
    }
  }

  list(): ProviderInfo[] {
    return this.repository.list().map((provider) => this.toInfo(provider))
  }

  create({
    kind,
    name,
    baseUrl = null,
    defaultModel = null,
    apiKey,
    contextWindow = null,
    hostedSearch = false,
  }: CreateProviderBody): ProviderInfo {
    const now = this.now()
    const provider: StoredProvider = {
      id: randomUUID(),
      kind,
      name: name.trim(),
      baseUrl,
      defaultModel,
      encryptedKey: apiKey === undefined ? null : this.encrypt(apiKey),
      contextWindow,
      hostedSearch,
      createdAt: now,
      updatedAt: now,
    }
    this.repository.save(provider)
    this.changed()
    return this.toInfo(provider)
  }

  /**
   * Changes a provider. Pointing it at another server forgets its stored key unless a key comes
   * with the change: the key was given for the old address, and whoever can edit the address (a
   * stolen web-host link) must not be able to redirect the key to a server of their own.
   */
  update({ id, apiKey, ...changes }: UpdateProviderBody): ProviderInfo {
    const current = this.stored(id)
    const baseUrl = changes.baseUrl === undefined ? current.baseUrl : changes.baseUrl
    const keptKey = sameServer(current.kind, baseUrl, current.baseUrl) ? current.encryptedKey : null
    const provider: StoredProvider = {
      ...current,
      ...changes,
      name: changes.name?.trim() ?? current.name,
      encryptedKey: apiKey === undefined ? keptKey : apiKey === null ? null : this.encrypt(apiKey),
      updatedAt: this.now(),
    }
    this.repository.save(provider)
    this.changed()
    return this.toInfo(provider)
  }

  delete({ id }: { id: string }): { id: string } {
    if (!this.repository.delete(id)) throw providerNotFound(id)
    this.changed()
    return { id }
  }

  async models({ id }: { id: string }, signal?: AbortSignal): Promise<{ models: string[] }> {
    return { models: await this.adapterFor(id).listModels(signal) }
  }

  /**
   * The models a provider with these settings would list, nothing saved: the form's Test
   * connection. Keys follow the rules of a saved provider: a typed key goes where it was typed for;
   * the edited provider's stored key only to the server it was stored for; the environment's only
   * to the kind's official endpoint.
   */
  async test(
    { kind, baseUrl = null, apiKey, id, model }: TestProviderBody,
    signal?: AbortSignal,
  ): Promise<ProviderTestResult> {
    const stored = id === undefined ? undefined : this.stored(id)
    // The stored key goes only with its own kind's requests: an edited provider's kind is not changed.
    if (stored && stored.kind !== kind) {
      throw new AtelierError(
        'validation_failed',
        `${stored.name} is a ${KIND_NAMES[stored.kind]} provider; it cannot be tested as ${KIND_NAMES[kind]}.`,
        { id: stored.id, kind: stored.kind },
      )
    }
    const provider = stored ?? adHocProvider(kind)
    const config = this.configOf(provider, baseUrl)
    const typed = apiKey?.trim()
    const adapter = createProviderAdapter(typed ? { ...config, apiKey: typed } : config)
    let listed: string[]
    try {
      listed = await adapter.listModels(signal)
    } catch (error) {
      const failure = toProviderError(kind, error)
      // Only a server that answered, and took the key, may still answer a chat.
      if (failure.status === undefined || failure.code === 'provider_auth') throw failure
      if (await answersChat(adapter, model ?? provider.defaultModel ?? DEFAULT_MODELS[kind], signal)) {
        return { models: [], unlisted: true }
      }
      throw failure
    }
    if (listed.length === 0 && (await answersChat(adapter, model ?? provider.defaultModel, signal))) {
      return { models: [], unlisted: true }
    }
    return { models: listed }
  }

  adapterFor(id: string): ProviderAdapter {
    const provider = this.stored(id)
    return createProviderAdapter(this.configOf(provider, provider.baseUrl))
  }

  /**
   * The provider a chat uses: the one it names, else (none named, or deleted since) the first set up,
   * else one made from whichever API key the environment holds.
   */
  resolve(id: string | null, overrides: ProviderOverrides = {}): ResolvedProvider {
    // A chat whose provider was deleted falls back to the first one, as a deleted profile does.
    const stored = (id !== null && this.repository.get(id)) || this.repository.list()[0]
    if (stored) return this.resolved(stored, overrides)
    const kind = (Object.keys(KEY_VARIABLES) as ProviderKind[]).find(
      (k) => k !== 'openai-chat' && this.environmentKeyFor(k, null),
    )
    if (!kind) {
      throw new AtelierError(
        'no_provider',
        'No model provider is set up. Add one in Settings → Providers, or set OPENAI_API_KEY, GEMINI_API_KEY or ANTHROPIC_API_KEY.',
      )
    }
    return this.resolveKind(kind, overrides)
  }

  /**
   * The provider a chat's turn uses: the one the chat names (with its model), unless the turn names
   * a wire format directly (the CLI's `--provider`, with its own address and model).
   */
  forChat(
    chat: Pick<Chat, 'provider' | 'model'>,
    direct?: { kind: ProviderKind } & ProviderOverrides,
  ): ResolvedProvider {
    if (direct) {
      const { kind, ...overrides } = direct
      return this.resolveKind(kind, overrides)
    }
    return this.resolve(chat.provider, chat.model ? { model: chat.model } : {})
  }

  /**
   * A provider of this wire format: the first stored one, else its public endpoint with the
   * environment's key. A `baseUrl` override (`atelier run --base-url`) gets no key from the
   * environment unless it is the official endpoint, and the stored key only at the stored address.
   */
  resolveKind(kind: ProviderKind, overrides: ProviderOverrides = {}): ResolvedProvider {
    const stored = this.repository.list().find((provider) => provider.kind === kind)
    return this.resolved(stored ?? adHocProvider(kind), overrides)
  }

  private resolved(provider: StoredProvider, overrides: ProviderOverrides): ResolvedProvider {
    const { model } = overrides
    const baseUrl = overrides.baseUrl || provider.baseUrl
    const config = this.configOf(provider, baseUrl, overrides.hostedSearch)
    // A local server needs no key; the official APIs do.
    if (!config.apiKey && isOfficialEndpoint(provider.kind, baseUrl)) {
      throw new AtelierError(
        'missing_api_key',
        `${provider.name} has no API key: set ${KEY_VARIABLES[provider.kind].join(' or ')}, or store a key in Settings → Providers.`,
        { provider: provider.id },
      )
    }
    const chosen = model ?? provider.defaultModel ?? DEFAULT_MODELS[provider.kind]
    if (!chosen) {
      throw new AtelierError(
        'missing_model',
        `Choose a model for ${provider.name}: it has no default model.`,
        {
          provider: provider.id,
        },
      )
    }
    return {
      id: provider.id,
      config,
      model: chosen,
      name: provider.name,
      contextWindow: provider.contextWindow,
    }
  }

  /**
   * How to reach `provider` at `baseUrl` (null: its official endpoint), with the key that may go
   * there, and its own web search where its kind has one and it is switched on (or `hostedSearch` says so).
   */
  private configOf(
    provider: StoredProvider,
    baseUrl: string | null,
    hostedSearch = provider.hostedSearch,
  ): ProviderConfig {
    const apiKey = this.keyFor(provider, baseUrl)
    return {
      kind: provider.kind,
      ...(baseUrl && { baseUrl }),
      ...(apiKey && { apiKey }),
      ...(hostedSearch && hasHostedSearch(provider.kind) && { hostedSearch: true }),
    }
  }

  /**
   * The key requests to `baseUrl` carry: the one stored for the provider, only on the server it was
   * stored with; else the environment's, only at the kind's official endpoint; else none.
   */
  private keyFor(provider: StoredProvider, baseUrl: string | null): string | undefined {
    if (provider.encryptedKey && sameServer(provider.kind, baseUrl, provider.baseUrl)) {
      return this.decrypt(provider)
    }
    return this.environmentKeyFor(provider.kind, baseUrl)?.value
  }

  /** The environment's key for this kind, if it may be sent to `baseUrl`. */
  private environmentKeyFor(
    kind: ProviderKind,
    baseUrl: string | null,
  ): { variable: string; value: string } | undefined {
    if (!isOfficialEndpoint(kind, baseUrl)) return undefined
    for (const variable of KEY_VARIABLES[kind]) {
      const value = this.env[variable]?.trim()
      if (value) return { variable, value }
    }
    return undefined
  }

  private encrypt(apiKey: string): Buffer {
    if (!this.secrets) {
      throw new AtelierError(
        'key_storage_unavailable',
        'API keys can be stored only by the desktop app, which encrypts them with the OS keychain. Set the environment variable instead.',
      )
    }
    return this.secrets.encrypt(apiKey.trim())
  }

  private decrypt(provider: StoredProvider): string {
    if (this.secrets && provider.encryptedKey) {
      try {
        return this.secrets.decrypt(provider.encryptedKey)
      } catch {
        // Sealed by another keychain (or another app): said below as such.
      }
    }
    const instead = isOfficialEndpoint(provider.kind, provider.baseUrl)
      ? ` to use ${KEY_VARIABLES[provider.kind].join(' or ')}`
      : ' to send no key'
    throw new AtelierError(
      'key_unreadable',
      `The stored API key of ${provider.name} cannot be decrypted here (it is readable only by the desktop app that stored it). Store it again, or remove it${instead}.`,
      { provider: provider.id },
    )
  }

  private stored(id: string): StoredProvider {
    const provider = this.repository.get(id)
    if (!provider) throw providerNotFound(id)
    return provider
  }

  private toInfo(provider: StoredProvider): ProviderInfo {
    const environment = this.environmentKeyFor(provider.kind, provider.baseUrl)
    return {
      id: provider.id,
      kind: provider.kind,
      name: provider.name,
      baseUrl: provider.baseUrl,
      defaultModel: provider.defaultModel,
      keySource: provider.encryptedKey ? 'stored' : environment ? 'environment' : 'none',
      keyVariable: environment?.variable ?? KEY_VARIABLES[provider.kind][0] ?? '',
      contextWindow: provider.contextWindow,
      hostedSearch: provider.hostedSearch,
    }
  }

  private changed(): void {
    this.events.emit('providers.changed', { providers: this.list(), keyStorage: this.keyStorage() })
  }
}

/** A provider of this kind that is not stored: its public endpoint, with the environment's key. */
function adHocProvider(kind: ProviderKind): StoredProvider {
  return {
    id: kind,
    kind,
    name: KIND_NAMES[kind],
    baseUrl: null,
    defaultModel: null,
    encryptedKey: null,
    contextWindow: null,
    hostedSearch: false,
    createdAt: 0,
    updatedAt: 0,
  }
}

/** A chat too short to cost anything: enough to see whether the server answers one. */
const PROBE_PROMPT = 'Reply with OK.'

/**
 * Whether the server streams an answer to a one-line chat. Servers that list no models (llama.cpp's
 * older builds, some gateways) often serve whichever model is loaded whatever the name; with no name
 * typed, a placeholder is sent for them. The first event is enough: the rest is not waited for.
 */
async function answersChat(
  adapter: ProviderAdapter,
  model: string | null,
  signal: AbortSignal | undefined,
): Promise<boolean> {
  const probe = new AbortController()
  const stop = () => probe.abort()
  signal?.addEventListener('abort', stop, { once: true })
  try {
    const request = {
      model: model ?? 'default',
      system: '',
      messages: [{ role: 'user' as const, text: PROBE_PROMPT }],
      tools: [],
      maxOutputTokens: 16,
    }
    for await (const _event of adapter.stream(request, probe.signal)) return true
    return false
  } catch {
    return false
  } finally {
    signal?.removeEventListener('abort', stop)
    probe.abort()
  }
}

/** The error for a provider id that names none. */
export function providerNotFound(id: string): AtelierError {
  return new AtelierError('not_found', `No provider with id "${id}".`, { id })
}
