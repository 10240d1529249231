/**
 * bash, zsh and powershell: one implementation, differing only by interpreter. Each is registered
 * only when its interpreter is on PATH at import, so a missing shell is never offered to a model.
 * Off by default: turning one on in settings is the user's explicit opt-in.
 */
import { stat } from 'node:fs/promises'
import { constants } from 'node:os'
import { type Static, Type } from '@sinclair/typebox'
import type { SandboxReport } from '../../../src-shared/sandbox'
import type { ToolParameterDescriptor } from '../../../src-shared/tools'
import { defineTool } from '../define-tool'
import { ToolError } from '../errors'
import { withEnforcedGitConfig } from '../git-environment'
import {
  baseDirectory,
  checkPath,
  describePath,
  loadPathPolicy,
  PATH_POLICY_DEFAULTS,
  PATH_POLICY_DESCRIPTORS,
  resolveAndValidatePath,
  stringList,
} from '../paths'
import { findOnPath, runShellCommand, type ShellCommandResult } from '../processes'
import { registerTool } from '../registry'
import { clampIntegerSetting, integerParameter, TIMEOUT_SECONDS } from '../settings-policy'
import type { RegisteredTool, ToolContext, ToolOutput } from '../types'

export type ShellName = 'bash' | 'zsh' | 'powershell'

const MAX_OUTPUT = { min: 1024, max: 1024 * 1024, fallback: 100 * 1024 }

/**
 * What a command inherits from Atelier's environment unless the person passes more: what a shell and
 * everyday programs need (where programs are, who and where the user is, language, terminal, temp
 * folders, time zone), and nothing that holds a credential. A denylist of secret-looking names leaked
 * DATABASE_URL=postgres://u:pass@…, GH_PAT, NPM_CONFIG__AUTH, AWS_ACCESS_KEY_ID: secrets are named
 * too freely to be recognized, so only what is known to be harmless passes. `NAME_*` matches a prefix.
 */
export const SHELL_ENVIRONMENT = [
  'PATH',
  'HOME',
  'USER',
  'LOGNAME',
  'LANG',
  'LC_*',
  'TERM',
  'SHELL',
  'TMPDIR',
  'TMP',
  'TEMP',
  'PWD',
  'TZ',
]

/**
 * On Windows, what cmd, PowerShell and common programs fail or misbehave without: the system folders
 * (SystemRoot: Winsock and crypto need it), the command interpreter and executable extensions, the
 * user's profile folders, and PowerShell's module path.
 */
export const WINDOWS_SHELL_ENVIRONMENT = [
  'SystemRoot',
  'SystemDrive',
  'windir',
  'ComSpec',
  'PATHEXT',
  'OS',
  'PROCESSOR_ARCHITECTURE',
  'NUMBER_OF_PROCESSORS',
  'COMPUTERNAME',
  'USERNAME',
  'USERPROFILE',
  'HOMEDRIVE',
  'HOMEPATH',
  'APPDATA',
  'LOCALAPPDATA',
  'ProgramData',
  'ProgramFiles',
  'ProgramFiles(x86)',
  'ProgramW6432',
  'CommonProgramFiles',
  'CommonProgramFiles(x86)',
  'CommonProgramW6432',
  'PUBLIC',
  'PSModulePath',
]

/** How a child shell's environment is chosen: the defaults above, the person's additions, or everything. */
export interface ShellEnvironmentChoice {
  /** Pass the whole environment, secrets included (`passSecretsToShell`). */
  passSecrets: boolean
  /** Names (or `PREFIX*`) the person passes besides the defaults (`passEnvironment`). */
  passEnvironment: readonly string[]
  platform?: NodeJS.Platform
}

/** The variables of `env` a command gets. */
export function shellEnvironment(
  env: NodeJS.ProcessEnv,
  { passSecrets, passEnvironment, platform = process.platform }: ShellEnvironmentChoice,
): NodeJS.ProcessEnv {
  if (passSecrets) return { ...env }
  const windows = platform === 'win32'
  const patterns = [...SHELL_ENVIRONMENT, ...(windows ? WINDOWS_SHELL_ENVIRONMENT : []), ...passEnvironment]
  // Windows' variable names ignore case (PATH is often spelled Path there); elsewhere they do not.
  const fold = (name: string) => (windows ? name.toUpperCase() : name)
  const exact = new Set(patterns.filter((p) => !p.endsWith('*')).map(fold))
  const prefixes = patterns.filter((p) => p.endsWith('*')).map((p) => fold(p.slice(0, -1)))
  const passes = (name: string) =>
    exact.has(fold(name)) || prefixes.some((prefix) => fold(name).startsWith(prefix))
  return Object.fromEntries(Object.entries(env).filter(([name]) => passes(name)))
}

const Parameters = Type.Object(
  {
    command: Type.String({ minLength: 1, description: 'The command line to run.' }),
    cwd: Type.Optional(
      Type.String({
        minLength: 1,
        description:
          'Folder to run in: absolute, ~-prefixed, or relative to the working folder. Default: the working folder.',
      }),
    ),
    leave_sandbox: Type.Optional(
      Type.Object(
        {
          needs: Type.Union([Type.Literal('network'), Type.Literal('everything')], {
            description:
              '"network": reach the network, still writing only in the working folder; "everything": run outside the sandbox.',
          }),
          justification: Type.String({
            minLength: 1,
            maxLength: 300,
            description: 'One line the user reads before deciding: why the command needs it.',
          }),
        },
        {
          additionalProperties: false,
          description:
            'Only when the command needs what the sandbox refuses (a result says so); the user is asked every time.',
        },
      ),
    ),
  },
  { additionalProperties: false },
)
type Parameters = Static<typeof Parameters>

const SHELL_DESCRIPTORS: ToolParameterDescriptor[] = [
  integerParameter(
    'timeoutSeconds',
    'Timeout',
    'After this the command and everything it started are killed.',
    TIMEOUT_SECONDS,
    's',
  ),
  integerParameter(
    'maxOutputBytes',
    'Output cap per stream',
    'Beyond it the middle of stdout or stderr is dropped; the start and the end are kept.',
    MAX_OUTPUT,
    'bytes',
  ),
  {
    name: 'passEnvironment',
    type: 'string-list',
    label: 'Pass these variables',
    description:
      'Commands get only PATH, HOME, USER, LOGNAME, LANG, LC_*, TERM, SHELL, TMPDIR, TMP, TEMP, PWD, TZ (and on Windows its system variables) from Atelier’s environment, plus the variables named here. A trailing * matches a prefix (JAVA_*).',
  },
  {
    name: 'passSecretsToShell',
    type: 'boolean',
    label: 'Pass the whole environment, secrets included',
    description:
      'Give commands every variable Atelier was started with: API keys, tokens, passwords, database URLs.',
  },
  ...PATH_POLICY_DESCRIPTORS,
]

interface Interpreter {
  file: string
  args: (command: string) => string[]
}

/** Where each shell lives and how it takes a command; powershell only on Windows (pwsh, then powershell). */
export function findInterpreter(name: ShellName, path = process.env.PATH ?? ''): Interpreter | undefined {
  if (name === 'powershell') {
    if (process.platform !== 'win32') return undefined
    const file = findOnPath('pwsh', path) ?? findOnPath('powershell', path)
    return file
      ? { file, args: (command) => ['-NoProfile', '-NonInteractive', '-Command', command] }
      : undefined
  }
  const file = findOnPath(name, path)
  return file ? { file, args: (command) => ['-c', command] } : undefined
}

async function runIn(interpreter: Interpreter, args: Parameters, context: ToolContext): Promise<ToolOutput> {
  const { parameters } = context.settings
  const policy = await loadPathPolicy(context)
  const { real, exists } = await resolveAndValidatePath(args.cwd ?? baseDirectory(context), context, policy)
  if (!exists || !(await stat(real)).isDirectory()) {
    throw new ToolError('not_found', `cwd "${args.cwd ?? real}" is not a folder.`)
  }
  const timeoutSeconds = clampIntegerSetting(parameters.timeoutSeconds, TIMEOUT_SECONDS)
  const command = {
    file: interpreter.file,
    args: interpreter.args(args.command),
    cwd: real,
    env: withEnforcedGitConfig(
      shellEnvironment(process.env, {
        passSecrets: parameters.passSecretsToShell === true,
        passEnvironment: stringList(parameters.passEnvironment),
      }),
    ),
  }
  const confined = await context.sandbox?.confine(command, context.workingDirectory ?? real, {
    outside: args.leave_sandbox?.needs === 'everything',
    network: args.leave_sandbox?.needs === 'network',
  })
  let result: ShellCommandResult
  let movedAside: string[] = []
  try {
    result = await runShellCommand({
      ...(confined?.command ?? command),
      timeoutMs: timeoutSeconds * 1000,
      maxOutputBytes: clampIntegerSetting(parameters.maxOutputBytes, MAX_OUTPUT),
      signal: context.signal,
      onOutput: (stream, text) => context.onUpdate({ kind: 'output', stream, text }),
      onStart: (started) => {
        const { journal, chatId, callId } = context
        return journal && chatId !== null ? journal.watch(chatId, callId, started) : undefined
      },
    })
  } finally {
    movedAside = confined?.done() ?? []
  }
  const sandbox = confined?.report
  if (sandbox?.state === 'sandboxed') result = asSignalled(result)
  const report =
    describeResult(result) + (sandbox ? sandboxNote(result, sandbox) : '') + movedAsideNote(movedAside)
  const shown = {
    display: { kind: 'shell', ...result, cwd: real, ...(sandbox && { sandbox }) } as const,
    truncated: result.truncated.stdout || result.truncated.stderr,
  }
  switch (result.termination) {
    case 'timed_out':
      return {
        content: `The command timed out after ${timeoutSeconds}s; it and every process it started were killed.\n${report}`,
        isError: true,
        errorType: 'timeout',
        ...shown,
      }
    case 'aborted':
      return {
        content: `The command was stopped by the user.\n${report}`,
        isError: true,
        errorType: 'aborted',
        ...shown,
      }
    default:
      return { content: report, isError: result.exitCode !== 0 || movedAside.length > 0, ...shown }
  }
}

/**
 * A sandboxed command killed by a signal reaches Atelier as the sandbox's exit code 128 + N (as a
 * shell reports it): read back as the signal, as it would be unconfined.
 */
function asSignalled(result: ShellCommandResult): ShellCommandResult {
  const code = result.exitCode
  if (result.termination !== 'exited' || code === null || code <= 128) return result
  const signal = Object.entries(constants.signals).find(([, number]) => number === code - 128)?.[0]
  return signal ? { ...result, exitCode: null, signal, termination: 'signalled' } : result
}

/** Lines of a failed command that say the sandbox refused it: a read-only path, an unreachable network. */
const READ_ONLY = /read-only file system|EROFS/i
const NO_NETWORK =
  /network is unreachable|could not resolve host|temporary failure in name resolution|ENETUNREACH|EAI_AGAIN|name or service not known|connection refused|couldn't connect to server|failed to connect|ECONNREFUSED/i
const QUOTED = /['"‘’“”`]([^'"‘’“”`]+)['"‘’“”`]/g
const BARE = /(?:^|\s)((?:\/|~\/)[^\s:'"]+)/g
/** An address a refused connection names: bash's /dev/tcp/HOST/PORT, curl's "to HOST port N", or HOST:PORT. */
const ADDRESS =
  /\/dev\/(?:tcp|udp)\/([^/\s]+)\/(\d+)|to ([\w.:-]+) port (\d+)|((?:\d{1,3}\.){3}\d{1,3}(?::\d+)?)/

/**
 * Said to the model when a sandboxed command failed because of the sandbox — which paths it could
 * not write, that the network is off and which address it could not reach — so it can ask to leave
 * the sandbox instead of guessing.
 */
export function sandboxNote(result: ShellCommandResult, sandbox: SandboxReport): string {
  if (sandbox.state !== 'sandboxed' || result.exitCode === 0) return ''
  const lines = `${result.stderr}\n${result.stdout}`.split('\n')
  const paths = new Set(lines.flatMap((line) => refusedPath(line) ?? []))
  const unreachable = sandbox.network ? [] : lines.filter((line) => NO_NETWORK.test(line))
  if (paths.size === 0 && unreachable.length === 0) return ''
  const addresses = new Set(unreachable.flatMap((line) => addressIn(line) ?? []))
  const refused = [
    ...(paths.size > 0
      ? [
          `writing ${[...paths].join(', ')} (only the working folder is writable, and its protected paths are read-only)`,
        ]
      : []),
    ...(unreachable.length > 0
      ? [
          `the network (it is off in the sandbox${addresses.size > 0 ? `: ${[...addresses].join(', ')} could not be reached` : ''})`,
        ]
      : []),
  ]
  return `\nThe sandbox refused ${refused.join(' and ')}. If the command needs it, call it again with leave_sandbox ({ needs: "network" or "everything", justification }); the user decides.\n`
}

/** Said when the sandbox moved aside protected paths the command created (see `CommandSandbox.moveAside`). */
function movedAsideNote(paths: readonly string[]): string {
  if (paths.length === 0) return ''
  return `\nThe sandbox undid what the command created at protected paths, which change only with the user's approval: ${paths.join(', ')} (moved aside to Atelier's data folder). If they are needed, call it again with leave_sandbox ({ needs: "everything", justification }); the user decides.\n`
}

/**
 * The path a read-only error names: the last one before the error text (`bash: line 1: PATH:
 * Read-only file system` names the shell first), else the first after it (Node's `EROFS: …, open 'PATH'`).
 */
function refusedPath(line: string): string | undefined {
  const at = line.search(READ_ONLY)
  if (at < 0) return undefined
  const pathIn = (text: string) =>
    [...text.matchAll(QUOTED)].map((match) => match[1]).at(-1) ??
    [...text.matchAll(BARE)].map((match) => match[1]).at(-1)
  return pathIn(line.slice(0, at)) ?? pathIn(line.slice(at))
}

function addressIn(line: string): string | undefined {
  const match = ADDRESS.exec(line)
  if (!match) return undefined
  const [, tcpHost, tcpPort, host, port, plain] = match
  if (tcpHost) return `${tcpHost}:${tcpPort}`
  if (host) return `${host}:${port}`
  return plain
}

/**
 * What the model reads: the status first, then each stream as plain text (JSON would escape every
 * newline and push the end of a long output, and the exit code, past the result cap).
 */
export function describeResult(result: ShellCommandResult): string {
  const ending =
    result.termination === 'signalled'
      ? `killed by ${result.signal}`
      : `exit code ${result.exitCode ?? 'none'}`
  const stream = (name: 'stdout' | 'stderr') => {
    const text = result[name]
    const note = result.truncated[name] ? ' (cut: the start and the end are kept)' : ''
    return text === '' ? `${name}: (empty)` : `${name}${note}:\n${text.endsWith('\n') ? text : `${text}\n`}`
  }
  return `${ending}, ${result.termination}, ${result.durationMs} ms\n${stream('stdout')}\n${stream('stderr')}`
}

export function buildShellTool(name: ShellName, interpreter: Interpreter): RegisteredTool {
  const how = name === 'powershell' ? 'PowerShell (-NoProfile -NonInteractive -Command)' : `${name} -c`
  return defineTool({
    name,
    description:
      `Runs a command with ${how} and returns stdout, stderr, the exit code and how it ended. It runs in the ` +
      'chat’s working folder unless cwd says otherwise. The allowed and denied paths do not bound it; the ' +
      'sandbox does where it is on (the system prompt says): then it writes only the working folder and a ' +
      'private temp folder, and reaches the network only if allowed. stdin is empty; long output keeps its start and end.',
    parameters: Parameters,
    settings: {
      // Like "Search file contents (grep)": what it does, and the shell by the name people know it by.
      title: `Run commands (${name === 'powershell' ? 'PowerShell' : name})`,
      // Whether it is on is said by Settings next to the switch: a fixed sentence would be wrong half the time.
      description: `Lets the model run ${name} commands on this computer.`,
      category: 'system',
      enabledByDefault: false,
      canDisable: true,
      defaultParameters: {
        timeoutSeconds: TIMEOUT_SECONDS.fallback,
        maxOutputBytes: MAX_OUTPUT.fallback,
        passEnvironment: [],
        passSecretsToShell: false,
        ...PATH_POLICY_DEFAULTS,
      },
      parameterDescriptors: SHELL_DESCRIPTORS,
    },
    managesOwnTimeout: true,
    // Both streams at their largest cap reach the model whole, with the status line around them.
    maxResultChars: 2 * MAX_OUTPUT.max + 4096,
    kind: 'execute',
    describe: async (args, context) => {
      const described = await describePath(args.cwd ?? baseDirectory(context), context, args.command)
      const syntax = name === 'powershell' ? 'powershell' : 'posix'
      const cwd = described.locations[0] as string
      const leaving = args.leave_sandbox
      const sandbox = leaving
        ? { run: leaving.needs, justification: leaving.justification }
        : { run: (await context.sandbox?.confines()) ? ('confined' as const) : ('none' as const) }
      return { ...described, command: { text: args.command, cwd, syntax, sandbox } }
    },
    check: (args, context) => checkPath(args.cwd ?? baseDirectory(context), context),
    execute: (args, context) => runIn(interpreter, args, context),
  })
}

for (const name of ['bash', 'zsh', 'powershell'] as const) {
  const interpreter = findInterpreter(name)
  if (interpreter) registerTool(buildShellTool(name, interpreter))
}
