/**
 * Providers as settings: where a model runs (kind, base URL, default model) and where its key comes
 * from — the environment, or the OS keychain through Electron's safeStorage in the desktop app.
 */
import { randomUUID } from 'node:crypto'
import type { ProviderKind } from '../../src-shared/agent'
import { AtelierError } from '../../src-shared/errors'
import type {
  CreateProviderBody,
  KeyStorage,
  ProviderInfo,
  UpdateProviderBody,
} from '../../src-shared/providers'
import type { AtelierEvents } from '../core/events'
import type { ProvidersRepository, StoredProvider } from '../db/providers-repository'
import { createProviderAdapter } from './adapters'
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
  config: ProviderConfig
  model: string
  /** The provider's name, for messages. */
  name: string
}

export interface ProviderOverrides {
  baseUrl?: string
  model?: string
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
    return { available: this.secrets !== undefined, plainText: this.secrets?.plainText ?? false }
  }

  list(): ProviderInfo[] {
    return this.repository.list().map((provider) => this.toInfo(provider))
  }

  create({ kind, name, baseUrl = null, defaultModel = null, apiKey }: CreateProviderBody): ProviderInfo {
    const now = this.now()
    const provider: StoredProvider = {
      id: randomUUID(),
      kind,
      name: name.trim(),
      baseUrl,
      defaultModel,
      encryptedKey: apiKey === undefined ? null : this.encrypt(apiKey),
      createdAt: now,
      updatedAt: now,
    }
    this.repository.save(provider)
    this.changed()
    return this.toInfo(provider)
  }

  update({ id, apiKey, ...changes }: UpdateProviderBody): ProviderInfo {
    const current = this.stored(id)
    const provider: StoredProvider = {
      ...current,
      ...changes,
      name: changes.name?.trim() ?? current.name,
      encryptedKey:
        apiKey === undefined ? current.encryptedKey : apiKey === null ? null : this.encrypt(apiKey),
      updatedAt: this.now(),
    }
    this.repository.save(provider)
    this.changed()
    return this.toInfo(provider)
  }

  delete({ id }: { id: string }): { id: string } {
    if (!this.repository.delete(id)) throw notFound(id)
    this.changed()
    return { id }
  }

  async models({ id }: { id: string }, signal?: AbortSignal): Promise<{ models: string[] }> {
    return { models: await this.adapterFor(id).listModels(signal) }
  }

  adapterFor(id: string): ProviderAdapter {
    return createProviderAdapter(this.configOf(this.stored(id)))
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
      (k) => k !== 'openai-chat' && this.envKey(k),
    )
    if (!kind) {
      throw new AtelierError(
        'no_provider',
        'No model provider is set up. Add one in Settings → Providers, or set OPENAI_API_KEY, GEMINI_API_KEY or ANTHROPIC_API_KEY.',
      )
    }
    return this.resolveKind(kind, overrides)
  }

  /** A provider of this wire format: the first stored one, else its public endpoint with the environment's key. */
  resolveKind(kind: ProviderKind, overrides: ProviderOverrides = {}): ResolvedProvider {
    const stored = this.repository.list().find((provider) => provider.kind === kind)
    const adHoc: StoredProvider = {
      id: kind,
      kind,
      name: KIND_NAMES[kind],
      baseUrl: null,
      defaultModel: null,
      encryptedKey: null,
      createdAt: 0,
      updatedAt: 0,
    }
    return this.resolved(stored ?? adHoc, overrides)
  }

  private resolved(provider: StoredProvider, { baseUrl, model }: ProviderOverrides): ResolvedProvider {
    const config = this.configOf(provider)
    if (baseUrl) config.baseUrl = baseUrl
    // A local server needs no key; every hosted API does.
    if (!config.apiKey && !config.baseUrl) {
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
    return { config, model: chosen, name: provider.name }
  }

  private configOf(provider: StoredProvider): ProviderConfig {
    const apiKey = provider.encryptedKey ? this.decrypt(provider) : this.envKey(provider.kind)
    return {
      kind: provider.kind,
      ...(provider.baseUrl && { baseUrl: provider.baseUrl }),
      ...(apiKey && { apiKey }),
    }
  }

  private envKey(kind: ProviderKind): string | undefined {
    for (const variable of KEY_VARIABLES[kind]) {
      const value = this.env[variable]?.trim()
      if (value) return value
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
    try {
      if (!this.secrets || !provider.encryptedKey) throw new Error('no keychain')
      return this.secrets.decrypt(provider.encryptedKey)
    } catch {
      throw new AtelierError(
        'key_unreadable',
        `The stored API key of ${provider.name} cannot be decrypted here (it is readable only by the desktop app that stored it). Store it again, or remove it to use ${KEY_VARIABLES[provider.kind].join(' or ')}.`,
        { provider: provider.id },
      )
    }
  }

  private stored(id: string): StoredProvider {
    const provider = this.repository.get(id)
    if (!provider) throw notFound(id)
    return provider
  }

  private toInfo(provider: StoredProvider): ProviderInfo {
    const keySource = provider.encryptedKey ? 'stored' : this.envKey(provider.kind) ? 'environment' : 'none'
    return {
      id: provider.id,
      kind: provider.kind,
      name: provider.name,
      baseUrl: provider.baseUrl,
      defaultModel: provider.defaultModel,
      keySource,
      keyVariable: KEY_VARIABLES[provider.kind][0] ?? '',
    }
  }

  private changed(): void {
    this.events.emit('providers.changed', { providers: this.list(), keyStorage: this.keyStorage() })
  }
}

function notFound(id: string): AtelierError {
  return new AtelierError('not_found', `No provider with id "${id}".`, { id })
}
