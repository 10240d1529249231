import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto'
import { afterEach, describe, expect, it } from 'vitest'
import { type Atelier, type AtelierOptions, createAtelier } from '../../../src-main/app/create-atelier'
import type { SecretStore } from '../../../src-main/providers/provider-service'
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
    expect(atelier.providers.keyStorage()).toEqual({ available: false, plainText: false })
    expect(() =>
      atelier.providers.create({ kind: 'openai-responses', name: 'OpenAI', apiKey: 'sk-1' }),
    ).toThrow(expect.objectContaining({ code: 'key_storage_unavailable' }))
    expect(atelier.providers.list()).toEqual([])
  })

  it('reports a keychain that stores in plain text so the panel can warn', () => {
    expect(open({ secrets: aesSecretStore(true) }).providers.keyStorage()).toEqual({
      available: true,
      plainText: true,
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
        (await atelier.agent.projection(atelier.profiles.forChat(reviewer.id))).definitions.map(
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
