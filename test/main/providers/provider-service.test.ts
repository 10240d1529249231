import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto'
import { afterEach, describe, expect, it } from 'vitest'
import { type Atelier, type AtelierOptions, createAtelier } from '../../../src-main/app/create-atelier'
import type { SecretStore } from '../../../src-main/providers/provider-service'
import type { ProviderKind } from '../../../src-shared/agent'
import { type FakeProvider, startFakeProvider } from '../../support/fake-provider'
import { useTempDirs } from '../../support/temp-dir'

/** A real AES-GCM store standing in for Electron's safeStorage, which needs the OS keychain. */
function aesSecretStore(plainText = false): SecretStore {
  const key = randomBytes(32)
  return {
    plainText,
    encrypt(text) {
      const iv = randomBytes(12)
      const cipher = createCipheriv('aes-256-gcm', key, iv)
      const body = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()])
      return Buffer.concat([iv, cipher.getAuthTag(), body])
    },
    decrypt(data) {
      const decipher = createDecipheriv('aes-256-gcm', key, data.subarray(0, 12))
      decipher.setAuthTag(data.subarray(12, 28))
      return Buffer.concat([decipher.update(data.subarray(28)), decipher.final()]).toString('utf8')
    },
  }
}

describe('ProviderService', () => {
  const tempDir = useTempDirs()
  const opened: Atelier[] = []
  afterEach(() => {
    for (const atelier of opened.splice(0)) atelier.close()
  })
  const open = (options: Partial<AtelierOptions> = {}) => {
    const atelier = createAtelier({ dataDir: tempDir(), env: {}, ...options })
    opened.push(atelier)
    return atelier
  }

  it('stores a key encrypted, never returns it, and uses it for requests', () => {
    const secrets = aesSecretStore()
    const atelier = open({ secrets })
    const created = atelier.providers.create({ kind: 'anthropic', name: 'Work', apiKey: 'sk-ant-secret' })
    expect(created).toMatchObject({
      kind: 'anthropic',
      name: 'Work',
      keySource: 'stored',
      keyVariable: 'ANTHROPIC_API_KEY',
    })
    expect(JSON.stringify(atelier.providers.list())).not.toContain('sk-ant-secret')
    const row = atelier.db.prepare('SELECT encrypted_key FROM providers').get() as { encrypted_key: Buffer }
    expect(row.encrypted_key.toString('latin1')).not.toContain('sk-ant-secret')
    expect(atelier.providers.resolve(created.id).config.apiKey).toBe('sk-ant-secret')
  })

  it('refuses to store a key where there is no keychain, and says to use the environment', () => {
    const atelier = open()
    expect(atelier.providers.keyStorage()).toEqual({
      available: false,
      plainText: false,
      environmentKeys: [],
    })
    expect(() =>
      atelier.providers.create({ kind: 'openai-responses', name: 'OpenAI', apiKey: 'sk-1' }),
    ).toThrow(expect.objectContaining({ code: 'key_storage_unavailable' }))
    expect(atelier.providers.list()).toEqual([])
  })

  it('reports a keychain that stores in plain text so the panel can warn', () => {
    expect(open({ secrets: aesSecretStore(true) }).providers.keyStorage()).toEqual({
      available: true,
      plainText: true,
      environmentKeys: [],
    })
  })

  it('reads keys from the environment, Gemini from GEMINI_API_KEY or else GOOGLE_API_KEY', () => {
    const atelier = open({ env: { GOOGLE_API_KEY: 'g-key' } })
    const gemini = atelier.providers.create({ kind: 'gemini', name: 'Gemini' })
    expect(gemini.keySource).toBe('environment')
    expect(atelier.providers.resolve(gemini.id)).toMatchObject({
      config: { kind: 'gemini', apiKey: 'g-key' },
      model: 'gemini-2.5-flash',
    })
  })

  it("keeps each provider's web search switch, and asks for the search only where the kind has one", () => {
    const atelier = open({ env: { OPENAI_API_KEY: 'o', ANTHROPIC_API_KEY: 'a' } })
    const anthropic = atelier.providers.create({ kind: 'anthropic', name: 'Claude', hostedSearch: true })
    const local = atelier.providers.create({
      kind: 'openai-chat',
      name: 'Local',
      baseUrl: 'http://127.0.0.1:11434/v1',
      defaultModel: 'm',
      hostedSearch: true,
    })
    expect(atelier.providers.list().map(({ name, hostedSearch }) => ({ name, hostedSearch }))).toEqual([
      { name: 'Claude', hostedSearch: true },
      { name: 'Local', hostedSearch: true },
    ])
    expect(atelier.providers.resolve(anthropic.id).config.hostedSearch).toBe(true)
    // Chat Completions has no hosted search: the switch asks nothing of it.
    expect(atelier.providers.resolve(local.id).config.hostedSearch).toBeUndefined()
    atelier.providers.update({ id: anthropic.id, hostedSearch: false })
    expect(atelier.providers.resolve(anthropic.id).config.hostedSearch).toBeUndefined()
    // A turn may ask for it or not whatever the switch says (`atelier run --hosted-search`).
    expect(atelier.providers.resolveKind('anthropic', { hostedSearch: true }).config.hostedSearch).toBe(true)
    expect(atelier.providers.resolveKind('openai-responses', { hostedSearch: true }).config).toMatchObject({
      hostedSearch: true,
    })
  })

  it('falls back to whichever key the environment holds when no provider is set up', () => {
    expect(open({ env: { ANTHROPIC_API_KEY: 'a' } }).providers.resolve(null)).toMatchObject({
      config: { kind: 'anthropic', apiKey: 'a' },
    })
    expect(() => open().providers.resolve(null)).toThrow(expect.objectContaining({ code: 'no_provider' }))
  })

  it('needs a key for a hosted API but not for a local server, and a model for a server with no default', () => {
    const atelier = open()
    const hosted = atelier.providers.create({ kind: 'openai-responses', name: 'OpenAI' })
    expect(() => atelier.providers.resolve(hosted.id)).toThrow(
      expect.objectContaining({
        code: 'missing_api_key',
        message: expect.stringContaining('OPENAI_API_KEY'),
      }),
    )
    const local = atelier.providers.create({
      kind: 'openai-chat',
      name: 'Ollama',
      baseUrl: 'http://127.0.0.1:11434/v1',
    })
    expect(() => atelier.providers.resolve(local.id)).toThrow(
      expect.objectContaining({ code: 'missing_model' }),
    )
    atelier.providers.update({ id: local.id, defaultModel: 'qwen3:8b' })
    expect(atelier.providers.resolve(local.id)).toMatchObject({
      config: { baseUrl: 'http://127.0.0.1:11434/v1' },
      model: 'qwen3:8b',
    })
    expect(atelier.providers.resolve(local.id, { model: 'llama3.3' }).model).toBe('llama3.3')
    // A chat still naming a deleted provider uses the first one set up.
    atelier.providers.delete({ id: local.id })
    expect(() => atelier.providers.resolve(local.id)).toThrow(
      expect.objectContaining({ code: 'missing_api_key' }),
    )
    atelier.providers.update({ id: hosted.id, baseUrl: 'http://127.0.0.1:9/v1' })
    expect(atelier.providers.resolve(local.id).name).toBe('OpenAI')
  })

  it('forgets a stored key when asked and goes back to the environment', () => {
    const atelier = open({ secrets: aesSecretStore(), env: { OPENAI_API_KEY: 'env-key' } })
    const provider = atelier.providers.create({
      kind: 'openai-responses',
      name: 'OpenAI',
      apiKey: 'stored-key',
    })
    expect(atelier.providers.resolve(provider.id).config.apiKey).toBe('stored-key')
    expect(atelier.providers.update({ id: provider.id, apiKey: null }).keySource).toBe('environment')
    expect(atelier.providers.resolve(provider.id).config.apiKey).toBe('env-key')
  })

  it('says plainly when a stored key cannot be decrypted here (stored by the desktop app)', () => {
    const dataDir = tempDir()
    const desktop = createAtelier({ dataDir, env: {}, secrets: aesSecretStore() })
    const provider = desktop.providers.create({ kind: 'anthropic', name: 'Claude', apiKey: 'k' })
    desktop.close()
    const cli = open({ dataDir })
    expect(cli.providers.list()[0]?.keySource).toBe('stored')
    expect(() => cli.providers.resolve(provider.id)).toThrow(
      expect.objectContaining({ code: 'key_unreadable' }),
    )
  })

  it('validates provider bodies at the contract and keeps providers across a reopen', async () => {
    const dataDir = tempDir()
    const first = createAtelier({ dataDir, env: {} })
    const bad = await first.dispatch('providers.create', { kind: 'mistral', name: 'x' })
    expect(bad).toMatchObject({ ok: false, error: { code: 'validation_failed' } })
    const badUrl = await first.dispatch('providers.create', {
      kind: 'openai-chat',
      name: 'x',
      baseUrl: 'file:///etc',
    })
    expect(badUrl).toMatchObject({ ok: false, error: { code: 'validation_failed' } })
    const ok = await first.dispatch('providers.create', {
      kind: 'openai-chat',
      name: 'LM Studio',
      baseUrl: 'http://127.0.0.1:1234/v1',
    })
    expect(ok).toMatchObject({ ok: true, value: { name: 'LM Studio', keySource: 'none' } })
    first.close()
    const second = open({ dataDir })
    expect(await second.dispatch('providers.list', {})).toMatchObject({
      ok: true,
      value: {
        providers: [{ name: 'LM Studio', baseUrl: 'http://127.0.0.1:1234/v1' }],
        keyStorage: { available: false },
      },
    })
  })
})

/** Keys a person's environment holds; none of them may reach a server that is not their kind's official API. */
const ENV_KEYS = {
  OPENAI_API_KEY: 'sk-env-openai-5c1e',
  GEMINI_API_KEY: 'env-gemini-9a02',
  ANTHROPIC_API_KEY: 'sk-ant-env-7d3b',
}
const ENV_KEY_OF: Record<ProviderKind, string> = {
  'openai-responses': ENV_KEYS.OPENAI_API_KEY,
  'openai-chat': ENV_KEYS.OPENAI_API_KEY,
  gemini: ENV_KEYS.GEMINI_API_KEY,
  anthropic: ENV_KEYS.ANTHROPIC_API_KEY,
}

describe('ProviderService: which key goes where', () => {
  const tempDir = useTempDirs()
  const opened: Atelier[] = []
  const fakes: FakeProvider[] = []
  afterEach(async () => {
    for (const atelier of opened.splice(0)) atelier.close()
    for (const fake of fakes.splice(0)) await fake.close()
  })
  const open = (options: Partial<AtelierOptions> = {}) => {
    const atelier = createAtelier({ dataDir: tempDir(), env: ENV_KEYS, ...options })
    opened.push(atelier)
    return atelier
  }

  it.each<[ProviderKind, string | undefined, boolean]>([
    ['openai-responses', undefined, true],
    ['openai-chat', undefined, true],
    ['openai-responses', 'https://api.openai.com/v1', true],
    ['openai-chat', 'HTTPS://API.OPENAI.COM:443/v1', true],
    ['gemini', 'https://generativelanguage.googleapis.com', true],
    ['anthropic', 'https://api.anthropic.com', true],
    ['openai-chat', 'http://127.0.0.1:11434/v1', false],
    ['openai-chat', 'https://openrouter.ai/api/v1', false],
    ['openai-responses', 'http://api.openai.com/v1', false],
    ['openai-responses', 'https://api.openai.com:8443/v1', false],
    ['openai-responses', 'https://api.openai.com.evil.example/v1', false],
    ['openai-responses', 'https://api.openai.com@evil.example/v1', false],
    ['openai-responses', 'https://evil.example/api.openai.com/v1', false],
    ['gemini', 'https://api.openai.com/v1', false],
    ['anthropic', 'https://generativelanguage.googleapis.com', false],
  ])('a %s provider at %s is sent the environment’s key: %s', (kind, baseUrl, sent) => {
    const atelier = open()
    const provider = atelier.providers.create({
      kind,
      name: 'P',
      defaultModel: 'm',
      ...(baseUrl && { baseUrl }),
    })
    expect(atelier.providers.resolve(provider.id).config.apiKey).toBe(sent ? ENV_KEY_OF[kind] : undefined)
    expect(provider.keySource).toBe(sent ? 'environment' : 'none')
  })

  it('sends no environment key to an `atelier run --base-url` server, only to the official endpoint', () => {
    const atelier = open()
    const local = { baseUrl: 'http://127.0.0.1:9/v1', model: 'm' }
    expect(atelier.providers.resolveKind('openai-chat', local).config).toEqual({
      kind: 'openai-chat',
      baseUrl: local.baseUrl,
    })
    expect(
      atelier.providers.resolveKind('anthropic', { baseUrl: 'https://proxy.example' }).config.apiKey,
    ).toBe(undefined)
    expect(atelier.providers.resolveKind('anthropic').config.apiKey).toBe(ENV_KEYS.ANTHROPIC_API_KEY)
    expect(
      atelier.providers.resolveKind('openai-chat', { baseUrl: 'https://api.openai.com/v1', model: 'm' })
        .config.apiKey,
    ).toBe(ENV_KEYS.OPENAI_API_KEY)
  })

  it('refuses the official endpoint without a key, even named explicitly', () => {
    const atelier = open({ env: {} })
    expect(() =>
      atelier.providers.resolveKind('openai-chat', { baseUrl: 'https://api.openai.com/v1', model: 'm' }),
    ).toThrow(expect.objectContaining({ code: 'missing_api_key' }))
  })

  it('sends a stored key only to the server it was stored for, also under a --base-url override', () => {
    const atelier = open({ secrets: aesSecretStore() })
    const router = atelier.providers.create({
      kind: 'openai-chat',
      name: 'Router',
      baseUrl: 'https://router.example/api/v1',
      defaultModel: 'm',
      apiKey: 'sk-router-stored',
    })
    expect(router).toMatchObject({ keySource: 'stored' })
    const key = (baseUrl: string) => atelier.providers.resolveKind('openai-chat', { baseUrl }).config.apiKey
    expect(key('https://router.example/other/v1')).toBe('sk-router-stored')
    expect(key('https://elsewhere.example/api/v1')).toBe(undefined)
    expect(key('http://router.example/api/v1')).toBe(undefined)
  })

  it('forgets a stored key when the provider is pointed at another server, unless a key comes with it', () => {
    const atelier = open({ secrets: aesSecretStore() })
    const created = atelier.providers.create({
      kind: 'openai-chat',
      name: 'Router',
      baseUrl: 'https://router.example/api/v1',
      defaultModel: 'm',
      apiKey: 'sk-router-stored',
    })
    const samePlace = atelier.providers.update({ id: created.id, baseUrl: 'https://router.example/api/v2' })
    expect(samePlace.keySource).toBe('stored')
    const moved = atelier.providers.update({ id: created.id, baseUrl: 'https://attacker.example/v1' })
    expect(moved.keySource).toBe('none')
    expect(atelier.providers.resolve(created.id).config.apiKey).toBe(undefined)
    const rekeyed = atelier.providers.update({
      id: created.id,
      baseUrl: 'https://other.example/v1',
      apiKey: 'sk-other',
    })
    expect(rekeyed.keySource).toBe('stored')
    expect(atelier.providers.resolve(created.id).config.apiKey).toBe('sk-other')
  })

  it('tells the form which key variables the environment holds, by name only', () => {
    const keyStorage = open({ env: { GOOGLE_API_KEY: 'g', OPENAI_API_KEY: ' ' } }).providers.keyStorage()
    expect(keyStorage.environmentKeys).toEqual(['GOOGLE_API_KEY'])
    expect(JSON.stringify(open().providers.keyStorage())).not.toContain(ENV_KEYS.OPENAI_API_KEY)
  })

  /** The key material a fake server saw in one request's headers, wherever an SDK puts it. */
  const sentKeys = (fake: FakeProvider) =>
    fake.requests.map((request) =>
      [request.headers.authorization, request.headers['x-api-key'], request.headers['x-goog-api-key']].join(
        ' ',
      ),
    )

  it.each<ProviderKind>(['openai-chat', 'openai-responses', 'gemini', 'anthropic'])(
    'a %s provider on a server of its own never receives the environment’s key, in a turn or a model list',
    async (kind) => {
      const fake = await startFakeProvider()
      fakes.push(fake)
      const atelier = open()
      const provider = atelier.providers.create({
        kind,
        name: 'Somebody’s server',
        baseUrl: fake.baseUrlFor(kind),
        defaultModel: 'fake-model',
      })
      const chat = atelier.chats.configure({ id: atelier.chats.create({}).id, provider: provider.id })
      fake.enqueue({ text: 'Hello.' })
      const turn = await atelier.agent.begin({ chatId: chat.id, prompt: 'hi' }).done
      expect(turn.status).toBe('completed')
      await atelier.providers.models({ id: provider.id })

      // The turn asks the model listing for the model's context window first.
      expect(fake.requests.map((request) => request.kind)).toEqual(['models', kind, 'models'])
      for (const seen of sentKeys(fake)) {
        for (const secret of Object.values(ENV_KEYS)) expect(seen).not.toContain(secret)
      }
    },
  )

  it('sends the key stored for a server to that server', async () => {
    const fake = await startFakeProvider()
    fakes.push(fake)
    const atelier = open({ secrets: aesSecretStore() })
    const provider = atelier.providers.create({
      kind: 'openai-chat',
      name: 'Hosted compatible server',
      baseUrl: fake.baseUrlFor('openai-chat'),
      apiKey: 'sk-stored-for-this-server',
    })
    await atelier.providers.models({ id: provider.id })
    expect(fake.requests[0]?.headers.authorization).toBe('Bearer sk-stored-for-this-server')
  })

  it('tests unsaved settings: a typed key where it was typed, a stored key only at its own server, nothing saved', async () => {
    const fake = await startFakeProvider()
    const other = await startFakeProvider()
    fakes.push(fake, other)
    const atelier = open({ secrets: aesSecretStore() })
    const baseUrl = fake.baseUrlFor('openai-chat')
    const typed = await atelier.providers.test({ kind: 'openai-chat', baseUrl, apiKey: 'sk-typed' })
    expect([...typed.models].sort()).toEqual([...fake.models].sort())
    expect(fake.requests[0]?.headers.authorization).toBe('Bearer sk-typed')
    expect(atelier.providers.list()).toEqual([])

    const provider = atelier.providers.create({
      kind: 'openai-chat',
      name: 'S',
      baseUrl,
      apiKey: 'sk-stored',
    })
    await atelier.providers.test({ kind: 'openai-chat', baseUrl, id: provider.id })
    expect(fake.requests[1]?.headers.authorization).toBe('Bearer sk-stored')
    // Pointed elsewhere in the form, the stored key stays home, as saving would forget it.
    await atelier.providers.test({
      kind: 'openai-chat',
      baseUrl: other.baseUrlFor('openai-chat'),
      id: provider.id,
    })
    for (const seen of sentKeys(other)) {
      expect(seen).not.toContain('sk-stored')
      for (const secret of Object.values(ENV_KEYS)) expect(seen).not.toContain(secret)
    }

    // Named as another kind, the stored provider is refused, not tested (nor its key sent) as that kind.
    const requests = fake.requests.length + other.requests.length
    await expect(
      atelier.providers.test({ kind: 'anthropic', baseUrl, id: provider.id }),
    ).rejects.toMatchObject({
      code: 'validation_failed',
    })
    expect(fake.requests.length + other.requests.length).toBe(requests)
  })

  describe('test', () => {
    it('says a server that lists no models but answers a chat is one, trying the model typed', async () => {
      const fake = await startFakeProvider()
      fakes.push(fake)
      fake.listsModels = false
      fake.enqueue({ text: 'OK' })
      const atelier = open()
      const baseUrl = fake.baseUrlFor('openai-chat')

      expect(await atelier.providers.test({ kind: 'openai-chat', baseUrl, model: 'qwen3' })).toEqual({
        models: [],
        unlisted: true,
      })
      expect(fake.requestsOf('openai-chat').map((request) => request.body.model)).toEqual(['qwen3'])
    })

    it("fails with the listing's own failure when the server answers no chat either", async () => {
      const fake = await startFakeProvider()
      fakes.push(fake)
      fake.listsModels = false
      fake.enqueue({ status: 404, errorMessage: 'no such route' })
      const atelier = open()

      await expect(
        atelier.providers.test({ kind: 'openai-chat', baseUrl: fake.baseUrlFor('openai-chat') }),
      ).rejects.toMatchObject({
        code: 'provider_rejected',
        message: expect.stringMatching(/^fake provider: this server lists no models \(404\) — /),
      })
    })
  })
})

describe('AgentProfileService', () => {
  const tempDir = useTempDirs()

  it('offers the built-in default, keeps the person’s own profiles, and protects the built-in one', async () => {
    const dataDir = tempDir()
    const first = createAtelier({ dataDir })
    const reviewer = first.profiles.create({
      name: 'Reviewer',
      systemPrompt: 'Review only.',
      tools: ['read_file', 'grep'],
      defaultMode: 'chat',
    })
    first.close()
    const atelier = createAtelier({ dataDir })
    try {
      expect(atelier.profiles.list().map((p) => [p.name, p.builtin, p.tools])).toEqual([
        ['Default', true, null],
        ['explore', false, ['read_file', 'list_directory', 'glob', 'grep']],
        ['general', false, null],
        ['Reviewer', false, ['read_file', 'grep']],
      ])
      expect(await atelier.dispatch('agents.update', { id: 'default', name: 'Mine' })).toMatchObject({
        ok: false,
        error: { code: 'builtin_profile' },
      })
      expect(await atelier.dispatch('agents.delete', { id: 'default' })).toMatchObject({ ok: false })
      // Choosing a profile for a chat switches the chat to the profile's mode.
      const chat = atelier.chats.create({})
      const configured = await atelier.dispatch('chats.configure', { id: chat.id, agent: reviewer.id })
      expect(configured).toMatchObject({ ok: true, value: { agent: reviewer.id, mode: 'chat' } })
      // The projection honours the profile: only its tools, among the enabled ones.
      expect(
        (await atelier.projection.projection(atelier.profiles.forChat(reviewer.id))).definitions.map(
          (d) => d.name,
        ),
      ).toEqual(['grep', 'read_file'])
      atelier.profiles.delete({ id: reviewer.id })
      expect(atelier.profiles.forChat(reviewer.id).id).toBe('default')
    } finally {
      atelier.close()
    }
  })
})
