import { spawn } from 'node:child_process'
import { generateKeyPairSync } from 'node:crypto'
import { afterEach, describe, expect, it } from 'vitest'
import {
  type Atelier,
  type AtelierOptions,
  createAtelier,
  LOCAL_USER,
} from '../../../../src-main/app/create-atelier'
import type { EventPayload } from '../../../../src-shared/contract'
import type { McpServerInfo, McpServerInput, McpSignIn } from '../../../../src-shared/mcp'
import { MASKED_VALUE } from '../../../../src-shared/secrets'
import { OAUTH_TOOL, type OAuthMcpServer, startOAuthMcpServer } from '../../../fixtures/oauth-mcp-server'
import { useTempDirs } from '../../../support/temp-dir'
import { BIN, atelier as cli } from '../../cli/built-cli'
import { databaseFilesHolding } from './secret-probes'

const TOOL = `remote__${OAUTH_TOOL}`

/** Plays the browser: the authorization page redirects at once; following it lands on our listener. */
async function browse(authorizationUrl: string): Promise<{ status: number; page: string; callback: string }> {
  const authorize = await fetch(authorizationUrl, { redirect: 'manual' })
  const callback = authorize.headers.get('location')
  if (authorize.status !== 302 || !callback) throw new Error(`authorize answered ${authorize.status}`)
  const landed = await fetch(callback)
  return { status: landed.status, page: await landed.text(), callback }
}

describe('OAuth sign-in to remote MCP servers', () => {
  const tempDir = useTempDirs()
  const cleanups: (() => Promise<unknown> | unknown)[] = []
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
  })

  async function serve(options: Parameters<typeof startOAuthMcpServer>[0] = {}): Promise<OAuthMcpServer> {
    const server = await startOAuthMcpServer(options)
    cleanups.push(() => server.close())
    return server
  }

  function open(options: Partial<AtelierOptions> = {}) {
    const dataDir = options.dataDir ?? tempDir()
    const opened: string[] = []
    const atelier = createAtelier({
      openExternal: (url) => {
        opened.push(url)
        return true
      },
      ...options,
      dataDir,
    })
    cleanups.push(() => atelier.close())
    const changes: McpServerInfo[][] = []
    atelier.events.subscribe((event, payload) => {
      if (event === 'mcp.changed') changes.push((payload as EventPayload<'mcp.changed'>).servers)
    })
    const info = () => atelier.mcp.list().find((server) => server.name === 'remote') as McpServerInfo
    const call = () =>
      atelier.tools.executor.execute(
        { name: TOOL, arguments: {} },
        { user: LOCAL_USER, workingDirectory: null, mode: 'chat', restrict: false },
      )
    return { atelier, dataDir, opened, changes, info, call }
  }

  function addRemote(atelier: Atelier, url: string, extra: Partial<McpServerInput> = {}) {
    return atelier.mcp.add({ name: 'remote', transport: 'http', url, ...extra } as McpServerInput, {
      approve: true,
    })
  }

  it('signs in through the browser: the tools are listed, and the tokens are stored only sealed', async () => {
    const server = await serve()
    const untouched = await serve()
    const { atelier, dataDir, opened, changes, info, call } = open()
    addRemote(atelier, server.url)
    atelier.mcp.add({ name: 'other', transport: 'http', url: untouched.url }, { approve: true })

    const started = await atelier.mcp.signIn('remote')
    expect(started.authorizationUrl).toMatch(new RegExp(`^${server.origin}/authorize\\?`))
    expect(started.opened).toBe(true)
    expect(opened).toEqual([started.authorizationUrl])
    const authorization = new URL(started.authorizationUrl ?? '')
    expect(authorization.searchParams.get('code_challenge_method')).toBe('S256')
    expect(authorization.searchParams.get('redirect_uri')).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/)
    expect(authorization.searchParams.get('resource')).toBe(server.url)

    const landed = await browse(started.authorizationUrl ?? '')
    expect(landed.status).toBe(200)
    expect(landed.page).toContain('Signed in — you can close this tab.')
    await atelier.mcp.signInCompletion('remote')

    expect(info()).toMatchObject({ auth: 'signed-in', running: true, tools: [TOOL] })
    expect(changes.at(-1)?.find((server) => server.name === 'remote')).toMatchObject({ auth: 'signed-in' })
    expect(await call()).toMatchObject({
      isError: false,
      content: expect.stringMatching(/^signed in as client-/),
    })
    expect(server).toMatchObject({ authorizations: 1, registrations: 1 })
    // Signing in to one server connects that one only.
    expect(untouched.refusals).toBe(0)

    // The tokens exist only sealed: neither the access nor the refresh token is in the database's bytes.
    atelier.db.pragma('wal_checkpoint(TRUNCATE)')
    for (const token of [...server.tokensIssued, ...server.refreshTokensIssued]) {
      expect(databaseFilesHolding(dataDir, token)).toEqual([])
    }
    // The listener is gone once the sign-in completed.
    await expect(fetch(landed.callback)).rejects.toThrow()
  })

  it('refreshes an expired access token without asking again, also after a restart', async () => {
    const server = await serve()
    const first = open()
    addRemote(first.atelier, server.url)
    const started = await first.atelier.mcp.signIn('remote')
    await browse(started.authorizationUrl ?? '')
    await first.atelier.mcp.signInCompletion('remote')

    server.expireAccessTokens()
    expect(await first.call()).toMatchObject({ isError: false })
    expect(server).toMatchObject({ refreshes: 1, authorizations: 1 })
    await first.atelier.close()

    const again = open({ dataDir: first.dataDir })
    server.expireAccessTokens()
    const [status] = await again.atelier.mcp.prepare()
    expect(status).toMatchObject({ connected: true, tools: [TOOL] })
    expect(await again.call()).toMatchObject({ isError: false })
    expect(server).toMatchObject({ refreshes: 2, authorizations: 1 })
    expect(again.info().auth).toBe('signed-in')
    expect(again.opened).toEqual([])
  })

  it('a turn never opens a browser: without tokens the server needs sign-in and is left out', async () => {
    const server = await serve()
    const { atelier, opened, info } = open()
    addRemote(atelier, server.url)
    expect(info().auth).toBe('none')

    const [status] = await atelier.mcp.prepare()
    expect(status).toMatchObject({ connected: false, tools: [] })
    expect(status?.error).toMatch(/^needs sign-in/)
    expect(status?.error).toContain('sign in from Settings → MCP or with `atelier mcp login remote`')
    expect(info()).toMatchObject({ auth: 'needs-sign-in', running: false })
    expect(opened).toEqual([])
    // Nothing of signing in happened: no registration, no authorization page.
    expect(server).toMatchObject({ authorizations: 0, registrations: 0 })
    expect(atelier.tools.registry.get(TOOL)).toBeUndefined()
  })

  it('signs out: the tokens are forgotten and the server needs sign-in again', async () => {
    const server = await serve()
    const { atelier, info, call } = open()
    addRemote(atelier, server.url)
    await browse((await atelier.mcp.signIn('remote')).authorizationUrl ?? '')
    await atelier.mcp.signInCompletion('remote')
    expect(await call()).toMatchObject({ isError: false })

    const after = await atelier.mcp.signOut('remote')
    expect(after).toMatchObject({ auth: 'needs-sign-in', running: false })
    const rows = atelier.db
      .prepare("SELECT kind FROM mcp_oauth_credentials WHERE kind IN ('tokens', 'code_verifier')")
      .all()
    expect(rows).toEqual([])
    const [status] = await atelier.mcp.prepare()
    expect(status).toMatchObject({ connected: false })
    expect(info().auth).toBe('needs-sign-in')
    expect(server.authorizations).toBe(1)

    // Signing in again reuses the registration (same loopback port) and asks the browser once more.
    await browse((await atelier.mcp.signIn('remote')).authorizationUrl ?? '')
    await atelier.mcp.signInCompletion('remote')
    expect(info()).toMatchObject({ auth: 'signed-in', running: true })
    expect(server).toMatchObject({ authorizations: 2, registrations: 1 })
  })

  it('a call that needs more scope than granted needs sign-in; signing in again asks for it (step-up)', async () => {
    const server = await serve({ scopesSupported: ['mcp:read'], toolScope: 'mcp:read mcp:write' })
    const { atelier, info, call } = open()
    addRemote(atelier, server.url)
    const first = await atelier.mcp.signIn('remote')
    expect(new URL(first.authorizationUrl ?? '').searchParams.get('scope')).toBe('mcp:read')
    await browse(first.authorizationUrl ?? '')
    await atelier.mcp.signInCompletion('remote')
    expect(info()).toMatchObject({ auth: 'signed-in', tools: [TOOL] })

    // The SDK tries a refresh (same scope), is refused again, and gives up: no browser from a turn.
    const refused = await call()
    expect(refused).toMatchObject({ isError: true, content: expect.stringMatching(/“remote” needs sign-in/) })
    expect(info().auth).toBe('needs-sign-in')
    expect(server).toMatchObject({ authorizations: 1, refreshes: 1 })

    const again = await atelier.mcp.signIn('remote')
    expect(new URL(again.authorizationUrl ?? '').searchParams.get('scope')).toBe('mcp:read mcp:write')
    await browse(again.authorizationUrl ?? '')
    await atelier.mcp.signInCompletion('remote')
    expect(await call()).toMatchObject({ isError: false })
    expect(info().auth).toBe('signed-in')
  })

  it('the scope a step-up asked for outlives the process; signing out forgets it', async () => {
    const server = await serve({ scopesSupported: ['mcp:read'], toolScope: 'mcp:read mcp:write' })
    const first = open()
    addRemote(first.atelier, server.url)
    await browse((await first.atelier.mcp.signIn('remote')).authorizationUrl ?? '')
    await first.atelier.mcp.signInCompletion('remote')
    expect(await first.call()).toMatchObject({ isError: true })
    await first.atelier.close()

    const second = open({ dataDir: first.dataDir })
    expect(second.info().auth).toBe('needs-sign-in')
    const again = await second.atelier.mcp.signIn('remote')
    expect(new URL(again.authorizationUrl ?? '').searchParams.get('scope')).toBe('mcp:read mcp:write')
    await second.atelier.mcp.signOut('remote')
    await second.atelier.close()

    const third = open({ dataDir: first.dataDir })
    expect(third.info().auth).toBe('needs-sign-in')
    const fresh = await third.atelier.mcp.signIn('remote')
    expect(new URL(fresh.authorizationUrl ?? '').searchParams.get('scope')).toBe('mcp:read')
  })

  it('refuses a callback that does not carry the state it sent, and goes on waiting', async () => {
    const server = await serve()
    const { atelier, info } = open()
    addRemote(atelier, server.url)
    const { authorizationUrl } = await atelier.mcp.signIn('remote')
    const authorize = await fetch(authorizationUrl ?? '', { redirect: 'manual' })
    const callback = new URL(authorize.headers.get('location') ?? '')

    const forged = new URL(callback)
    forged.searchParams.set('state', 'someone-else')
    const refused = await fetch(forged)
    expect(refused.status).toBe(400)
    expect(await refused.text()).toContain('not the one Atelier is waiting for')
    expect(info().auth).not.toBe('signed-in')

    const landed = await fetch(callback)
    expect(landed.status).toBe(200)
    await atelier.mcp.signInCompletion('remote')
    expect(info().auth).toBe('signed-in')
  })

  it('a sign-in not completed in time closes its listener and says why', async () => {
    const server = await serve()
    const { atelier, info } = open({ mcpSignInTimeoutMs: 300 })
    addRemote(atelier, server.url)
    const { authorizationUrl } = await atelier.mcp.signIn('remote')
    const redirectUri = new URL(authorizationUrl ?? '').searchParams.get('redirect_uri') ?? ''

    await expect(atelier.mcp.signInCompletion('remote')).rejects.toThrow(
      /Sign-in to “remote” was not completed within 300 ms/,
    )
    expect(info().error).toMatch(/was not completed within/)
    await expect(fetch(redirectUri)).rejects.toThrow()
  })

  it('a new sign-in replaces the one still waiting', async () => {
    const server = await serve()
    const { atelier, info } = open()
    addRemote(atelier, server.url)
    const first = await atelier.mcp.signIn('remote')
    const firstCallback = (await fetch(first.authorizationUrl ?? '', { redirect: 'manual' })).headers.get(
      'location',
    )
    const second = await atelier.mcp.signIn('remote')
    // The first listener is closed (or the port now serves the second sign-in, which refuses its state).
    const late = await fetch(firstCallback ?? '').catch(() => undefined)
    expect(late?.status ?? 'closed').not.toBe(200)
    await browse(second.authorizationUrl ?? '')
    await atelier.mcp.signInCompletion('remote')
    expect(info()).toMatchObject({ auth: 'signed-in' })
    expect(info().error).toBeUndefined()
  })

  it('two sign-ins started together: the later one signs in, the earlier one stops and closes its listener', async () => {
    const server = await serve()
    const { atelier, info } = open()
    addRemote(atelier, server.url)
    // Signed in once, so the client is registered for a loopback port, which the next sign-in takes first.
    const once = await atelier.mcp.signIn('remote')
    await browse(once.authorizationUrl ?? '')
    await atelier.mcp.signInCompletion('remote')
    const registered = new URL(once.authorizationUrl ?? '').searchParams.get('redirect_uri') ?? ''
    atelier.mcp.signOut('remote')

    const first = atelier.mcp.signIn('remote')
    const second = atelier.mcp.signIn('remote')
    await expect(first).rejects.toThrow('A new sign-in replaced this one.')
    const { authorizationUrl } = await second
    const landed = await browse(authorizationUrl ?? '')
    expect(landed.page).toContain('Signed in — you can close this tab.')
    await atelier.mcp.signInCompletion('remote')
    expect(info()).toMatchObject({ auth: 'signed-in', tools: [TOOL] })
    expect(info().error).toBeUndefined()
    // The earlier sign-in listened on the registered port; it is closed, not left waiting.
    expect(landed.callback.startsWith(registered)).toBe(false)
    await expect(fetch(registered)).rejects.toThrow()
  })

  it('signs in with client credentials, no browser; the secret is sealed and masked', async () => {
    const server = await serve({ clients: [{ clientId: 'machine', clientSecret: 'machine-secret-2718' }] })
    const { atelier, dataDir, opened, info, call } = open()
    const added = addRemote(atelier, server.url, {
      oauth: { grant: 'client_credentials', clientId: 'machine', clientSecret: 'machine-secret-2718' },
    })
    expect(added.definition).toMatchObject({
      oauth: { grant: 'client_credentials', clientId: 'machine', clientSecret: MASKED_VALUE },
    })

    expect(await atelier.mcp.signIn('remote')).toEqual({ authorizationUrl: null, opened: false })
    expect(info()).toMatchObject({ auth: 'signed-in', running: true, tools: [TOOL] })
    expect(await call()).toMatchObject({ isError: false, content: 'signed in as machine' })
    expect(server).toMatchObject({ authorizations: 0, registrations: 0, clientCredentialGrants: 1 })
    expect(opened).toEqual([])

    // Sent back masked, the secret is kept.
    await atelier.mcp.update('remote', info().definition)
    expect(await atelier.mcp.signIn('remote')).toEqual({ authorizationUrl: null, opened: false })
    expect(server.clientCredentialGrants).toBe(2)

    atelier.db.pragma('wal_checkpoint(TRUNCATE)')
    expect(databaseFilesHolding(dataDir, 'machine-secret-2718')).toEqual([])
    for (const token of server.tokensIssued) expect(databaseFilesHolding(dataDir, token)).toEqual([])
  })

  it('signs in with client credentials and a private key (private_key_jwt); the key is sealed and masked', async () => {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' })
    const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString()
    const server = await serve({
      clients: [
        { clientId: 'signer', publicKey: publicKey.export({ type: 'spki', format: 'pem' }).toString() },
      ],
    })
    const { atelier, dataDir, info, call } = open()
    const added = addRemote(atelier, server.url, {
      oauth: { grant: 'client_credentials', clientId: 'signer', clientPrivateKey: pem },
    })
    expect(added.definition).toMatchObject({ oauth: { clientPrivateKey: MASKED_VALUE } })

    expect(await atelier.mcp.signIn('remote')).toEqual({ authorizationUrl: null, opened: false })
    expect(await call()).toMatchObject({ isError: false, content: 'signed in as signer' })
    expect(server).toMatchObject({ assertionsVerified: 1, clientCredentialGrants: 1 })
    expect(info().auth).toBe('signed-in')

    atelier.db.pragma('wal_checkpoint(TRUNCATE)')
    const keyBody = pem.split('\n')[1] ?? ''
    expect(keyBody.length).toBeGreaterThan(20)
    expect(databaseFilesHolding(dataDir, keyBody)).toEqual([])
  })

  it('signs in as a pre-registered client, without registering one', async () => {
    const server = await serve({ clients: [{ clientId: 'desktop', clientSecret: 'desktop-secret' }] })
    const { atelier, call } = open()
    addRemote(atelier, server.url, { oauth: { clientId: 'desktop', clientSecret: 'desktop-secret' } })
    const { authorizationUrl } = await atelier.mcp.signIn('remote')
    expect(new URL(authorizationUrl ?? '').searchParams.get('client_id')).toBe('desktop')
    await browse(authorizationUrl ?? '')
    await atelier.mcp.signInCompletion('remote')
    expect(await call()).toMatchObject({ isError: false, content: 'signed in as desktop' })
    expect(server.registrations).toBe(0)
  })

  it('refuses OAuth settings that cannot work, with a clear error', () => {
    const { atelier } = open()
    const add = (oauth: Extract<McpServerInput, { transport: 'http' }>['oauth']) =>
      addRemote(atelier, 'http://127.0.0.1:9/mcp', { oauth })
    expect(() => add({ grant: 'client_credentials', clientId: 'x' })).toThrow(
      /need a client id, and a client secret or private key/,
    )
    expect(() => add({ clientSecret: 's' })).toThrow(/needs the client id it belongs to/)
    expect(() => add({ clientMetadataUrl: 'https://example.com' })).toThrow(/https with a path/)
    const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey
    const rsaPem = rsa.export({ type: 'pkcs8', format: 'pem' }).toString()
    expect(() => add({ grant: 'client_credentials', clientId: 'x', clientPrivateKey: 'not a key' })).toThrow(
      /private key cannot be used: it must be a PKCS #8 PEM key/,
    )
    expect(() =>
      add({
        grant: 'client_credentials',
        clientId: 'x',
        clientPrivateKey: rsaPem,
        signingAlgorithm: 'ES256',
      }),
    ).toThrow(/ES256 does not fit a rsa key/)
    expect(() => add({ clientId: 'x', clientPrivateKey: rsaPem })).toThrow(/client-credentials requests only/)
  })

  it('forgets the credentials with the server, and when its URL changes', async () => {
    const server = await serve()
    const { atelier, info } = open()
    addRemote(atelier, server.url)
    await browse((await atelier.mcp.signIn('remote')).authorizationUrl ?? '')
    await atelier.mcp.signInCompletion('remote')
    const count = () =>
      (atelier.db.prepare('SELECT count(*) AS n FROM mcp_oauth_credentials').get() as { n: number }).n
    expect(count()).toBeGreaterThan(0)

    await atelier.mcp.update('remote', { ...info().definition, url: `${server.url}?v=2` } as McpServerInput)
    expect(count()).toBe(0)
    expect(info().auth).toBe('none')

    await browse((await atelier.mcp.signIn('remote')).authorizationUrl ?? '')
    await atelier.mcp.signInCompletion('remote')
    expect(count()).toBeGreaterThan(0)
    await atelier.mcp.remove('remote')
    expect(count()).toBe(0)
  })

  it('without a browser to open (web host, CLI) the URL is handed back unopened', async () => {
    const server = await serve()
    const atelier = createAtelier({ dataDir: tempDir() })
    cleanups.push(() => atelier.close())
    addRemote(atelier, server.url)
    // Through the contract, as the web host's page calls it.
    const started = await atelier.dispatch('mcp.signIn', { name: 'remote' })
    expect(started).toMatchObject({
      ok: true,
      value: { opened: false, authorizationUrl: expect.stringContaining('/authorize?') },
    })
    if (!started.ok) return
    await browse((started.value as McpSignIn).authorizationUrl ?? '')
    await atelier.mcp.signInCompletion('remote')
    const signedOut = await atelier.dispatch('mcp.signOut', { name: 'remote' })
    expect(signedOut).toMatchObject({ ok: true, value: { name: 'remote', auth: 'needs-sign-in' } })
  })

  // The built CLI, as `npm install` leaves it (npm test builds first).
  it('atelier mcp login prints the URL, waits for the browser, and says how many tools it got', async () => {
    const server = await serve()
    const dataDir = tempDir()
    expect(
      await cli(dataDir, 'mcp', 'add', 'remote', '--url', server.url, '--scope', 'mcp:read'),
    ).toMatchObject({
      code: 0,
    })

    const { authorizationUrl, exited, output } = loginThroughCli(dataDir)
    const url = await authorizationUrl
    expect(output().stdout).toContain('Open this URL to sign in to remote:')
    expect((await browse(url)).status).toBe(200)
    expect(await exited).toBe(0)
    expect(output().stdout).toMatch(/Signed in to remote: 1 tool\n$/)
    expect(output().stderr).toBe('')

    expect((await cli(dataDir, 'mcp', 'list')).stdout).toMatch(/^on\s+remote\s+\S+ {2}\(signed in\)$/m)
    expect((await cli(dataDir, 'tool', TOOL, '{}')).stdout).toMatch(/^signed in as client-/)
    expect(await cli(dataDir, 'mcp', 'logout', 'remote')).toMatchObject({
      code: 0,
      stdout: 'Signed out of remote\n',
    })
    expect((await cli(dataDir, 'mcp', 'login', 'nothing')).code).toBe(1)
  }, 60_000)

  it('a step-up refused in one process is signed in for by `atelier mcp login` in another', async () => {
    const server = await serve({ scopesSupported: ['mcp:read'], toolScope: 'mcp:read mcp:write' })
    const dataDir = tempDir()
    expect((await cli(dataDir, 'mcp', 'add', 'remote', '--url', server.url)).code).toBe(0)
    const first = loginThroughCli(dataDir)
    await browse(await first.authorizationUrl)
    expect(await first.exited).toBe(0)

    const refused = await cli(dataDir, 'tool', TOOL, '{}')
    expect(refused.stdout + refused.stderr).toContain('atelier mcp login remote')
    expect((await cli(dataDir, 'mcp', 'list')).stdout).toMatch(/\(needs sign-in\)$/m)

    const again = loginThroughCli(dataDir)
    const url = await again.authorizationUrl
    expect(new URL(url).searchParams.get('scope')).toBe('mcp:read mcp:write')
    await browse(url)
    expect(await again.exited).toBe(0)
    expect((await cli(dataDir, 'tool', TOOL, '{}')).stdout).toMatch(/^signed in as client-/)
  }, 90_000)

  /** `atelier mcp login remote` in a process of its own: the URL it prints, and its exit. */
  function loginThroughCli(dataDir: string) {
    const login = spawn(process.execPath, [BIN, '--data-dir', dataDir, 'mcp', 'login', 'remote'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    cleanups.push(() => login.kill())
    let stdout = ''
    let stderr = ''
    login.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk
    })
    const exited = new Promise<number | null>((resolve) => login.once('exit', resolve))
    const authorizationUrl = new Promise<string>((resolve, reject) => {
      login.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        stdout += chunk
        const url = /^(http\S+\/authorize\?\S+)$/m.exec(stdout)?.[1]
        if (url && stdout.includes('Waiting for the browser…')) resolve(url)
      })
      login.once('exit', () => reject(new Error(`login exited early: ${stdout}${stderr}`)))
    })
    return { authorizationUrl, exited, output: () => ({ stdout, stderr }) }
  }
})
