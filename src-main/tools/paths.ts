/**
 * resolveAndValidatePath: the one containment check. Every path-taking tool, the shell's cwd,
 * custom tools and tool services go through it. Paths are compared as real paths (every symlink
 * resolved) with path.relative — never as string prefixes, so /w/proj-evil is not inside /w/proj.
 */
import { lstatSync, readlinkSync, realpathSync } from 'node:fs'
import { lstat, readlink, realpath } from 'node:fs/promises'
import { homedir } from 'node:os'
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path'
import { Type } from '@sinclair/typebox'
import type { ToolParameterDescriptor, ToolSettingsMetadata } from '../../src-shared/tools'
import { ToolPathError } from './errors'
import { integerParameter, TIMEOUT_SECONDS } from './settings-policy'
import type { ToolContext } from './types'

/** Beyond this a path is refused outright; Linux's PATH_MAX. */
export const MAX_PATH_LENGTH = 4096
/** Link hops followed before a chain counts as a loop, as the kernel's ELOOP does. */
const MAX_LINK_HOPS = 40

/**
 * Where credentials live under the home folder, wherever the OS is: keys, cloud, registry and Git
 * host tokens, and the password store `pass` keeps.
 */
const CREDENTIAL_PATHS = [
  '~/.ssh',
  '~/.gnupg',
  '~/.aws',
  '~/.azure',
  '~/.config/gcloud',
  '~/.config/gh',
  '~/.docker',
  '~/.kube',
  '~/.git-credentials',
  '~/.netrc',
  '~/.npmrc',
  '~/.pypirc',
  '~/.password-store',
]

/**
 * Per OS: browser profiles (cookies, saved passwords, session tokens), password managers' local
 * data, and the OS's own credential stores.
 */
const SECRET_STORES: Record<'linux' | 'darwin' | 'win32', string[]> = {
  linux: [
    '~/.config/google-chrome',
    '~/.config/chromium',
    '~/.config/BraveSoftware',
    '~/.config/microsoft-edge',
    '~/.mozilla',
    '~/snap/firefox',
    '~/snap/chromium',
    '~/.var/app/org.mozilla.firefox',
    '~/.var/app/com.google.Chrome',
    '~/.var/app/org.chromium.Chromium',
    '~/.var/app/com.brave.Browser',
    '~/.var/app/com.microsoft.Edge',
    '~/.config/1Password',
    '~/.config/op',
    '~/.config/Bitwarden',
    '~/.config/Bitwarden CLI',
    '~/.config/keepassxc',
    '~/.local/share/keyrings',
    '~/.local/share/kwalletd',
    '~/.pki',
  ],
  darwin: [
    '~/Library/Application Support/Google/Chrome',
    '~/Library/Application Support/Chromium',
    '~/Library/Application Support/BraveSoftware',
    '~/Library/Application Support/Microsoft Edge',
    '~/Library/Application Support/Firefox',
    '~/Library/Safari',
    '~/Library/Cookies',
    '~/Library/Containers/com.apple.Safari',
    '~/Library/Group Containers/2BUA8C4S2C.com.1password',
    '~/Library/Application Support/1Password',
    '~/.config/op',
    '~/Library/Application Support/Bitwarden',
    '~/Library/Containers/com.bitwarden.desktop',
    '~/Library/Application Support/Bitwarden CLI',
    '~/Library/Application Support/KeePassXC',
    '~/Library/Keychains',
  ],
  win32: [
    '~/AppData/Local/Google/Chrome/User Data',
    '~/AppData/Local/Chromium/User Data',
    '~/AppData/Local/BraveSoftware/Brave-Browser/User Data',
    '~/AppData/Local/Microsoft/Edge/User Data',
    '~/AppData/Roaming/Mozilla/Firefox',
    '~/AppData/Local/1Password',
    '~/AppData/Roaming/Bitwarden',
    '~/AppData/Roaming/Bitwarden CLI',
    '~/AppData/Roaming/KeePassXC',
    '~/AppData/Roaming/Microsoft/Credentials',
    '~/AppData/Local/Microsoft/Credentials',
    '~/AppData/Roaming/Microsoft/Protect',
    '~/AppData/Roaming/Microsoft/Vault',
    '~/AppData/Local/Microsoft/Vault',
    '~/AppData/Roaming/GitHub CLI',
    '~/AppData/Roaming/gcloud',
    '~/_netrc',
  ],
}

/**
 * Files a shell runs when it starts: a line written there runs in every later terminal, outside
 * any tool's limits. Tools may read them (a model helping with a PATH problem needs to), but the
 * file-writing tools do not change them unless the person takes them off the list.
 */
const SHELL_STARTUP_FILES: Record<'posix' | 'win32', string[]> = {
  // PowerShell's profiles (and the modules they load) live in Documents, which OneDrive may hold.
  win32: [
    '~/Documents/PowerShell',
    '~/Documents/WindowsPowerShell',
    '~/OneDrive/Documents/PowerShell',
    '~/OneDrive/Documents/WindowsPowerShell',
  ],
  posix: [
    '~/.bashrc',
    '~/.bash_profile',
    '~/.bash_login',
    '~/.bash_logout',
    '~/.profile',
    '~/.zshrc',
    '~/.zprofile',
    '~/.zshenv',
    '~/.zlogin',
    '~/.zlogout',
    '~/.config/fish/config.fish',
    '~/.config/fish/conf.d',
    '~/.config/powershell',
  ],
}

/** What no file tool reads or writes by default on `platform`. */
export function defaultDeniedPaths(platform: NodeJS.Platform = process.platform): string[] {
  // Other Unixes keep their browsers and keyrings in the XDG folders, as Linux does.
  const stores = platform === 'darwin' || platform === 'win32' ? platform : 'linux'
  return [...CREDENTIAL_PATHS, ...SECRET_STORES[stores]]
}

/** What write_file and edit_file refuse by default on `platform`: the denied paths and the shell start-up files. */
export function defaultWriteDeniedPaths(platform: NodeJS.Platform = process.platform): string[] {
  const shells = platform === 'win32' ? 'win32' : 'posix'
  return [...defaultDeniedPaths(platform), ...SHELL_STARTUP_FILES[shells]]
}

export const DEFAULT_DENIED_PATHS = defaultDeniedPaths()
export const DEFAULT_WRITE_DENIED_PATHS = defaultWriteDeniedPaths()

/** The two settings every path-taking tool has, with their defaults. */
export const PATH_POLICY_DESCRIPTORS: ToolParameterDescriptor[] = [
  {
    name: 'allowedPaths',
    type: 'string-list',
    label: 'Allowed paths',
    description:
      'Folders the tool may use besides the chat’s folder. In chat mode or without restriction, when set, only these.',
  },
  {
    name: 'deniedPaths',
    type: 'string-list',
    label: 'Denied paths',
    description:
      'Folders and files the tool never touches. They win over allowed paths. Relative entries start where relative paths do (the chat’s folder in agent mode).',
  },
]
export const PATH_POLICY_DEFAULTS = { allowedPaths: [] as string[], deniedPaths: DEFAULT_DENIED_PATHS }

/** Settings metadata of a file tool: the path policy, then any parameters of its own. */
export function pathToolSettings(
  title: string,
  description: string,
  own: { defaults?: Record<string, unknown>; descriptors?: ToolParameterDescriptor[] } = {},
): ToolSettingsMetadata {
  return {
    title,
    description,
    category: 'system',
    enabledByDefault: true,
    canDisable: true,
    defaultParameters: { ...PATH_POLICY_DEFAULTS, ...own.defaults },
    parameterDescriptors: [...PATH_POLICY_DESCRIPTORS, ...(own.descriptors ?? [])],
  }
}

/**
 * Settings metadata of a tool that changes files (write_file, edit_file): the path policy, with the
 * shell start-up files denied besides, and a timeout past which a write is stopped before it lands.
 */
export function writeToolSettings(title: string, description: string): ToolSettingsMetadata {
  return pathToolSettings(title, description, {
    defaults: { deniedPaths: DEFAULT_WRITE_DENIED_PATHS, timeoutSeconds: TIMEOUT_SECONDS.fallback },
    descriptors: [
      integerParameter(
        'timeoutSeconds',
        'Timeout',
        'A write still going after this (a slow disk, another write of the same file ahead of it) is stopped, and the file stays as it was.',
        TIMEOUT_SECONDS,
        's',
      ),
    ],
  })
}

/** The `path` argument of a file tool, as the model sees it. */
export function pathArgument(what: 'file' | 'folder') {
  const hint = what === 'folder' ? ' (use "." for it)' : ''
  return Type.String({
    minLength: 1,
    description: `The ${what}: absolute, ~-prefixed, or relative to the chat’s working folder${hint}.`,
  })
}

export interface ResolvedPath {
  /** Absolute, every existing component resolved through symlinks. */
  real: string
  exists: boolean
}

/** Whether `child` is `parent` or lies below it; both must be absolute and resolved. */
export function isInside(parent: string, child: string): boolean {
  const rel = relative(parent, child)
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel))
}

/**
 * isInside for two real paths (absolute, resolved): on POSIX a prefix up to a separator, without
 * path.relative's resolving — walks ask it for every folder and link they meet.
 */
export const isInsideReal: (parent: string, child: string) => boolean =
  sep === '/'
    ? (parent, child) => child === parent || child.startsWith(parent.endsWith('/') ? parent : `${parent}/`)
    : isInside

function expandHome(path: string): string {
  if (path === '~') return homedir()
  if (path.startsWith('~/') || path.startsWith(`~${sep}`)) return join(homedir(), path.slice(2))
  return path
}

/**
 * Where relative paths start: the bound folder in agent mode; in chat mode the folder is not
 * injected and the process's own working directory is used.
 */
export function baseDirectory(context: Pick<PathScope, 'mode' | 'workingDirectory'>): string {
  return context.mode === 'agent' && context.workingDirectory ? context.workingDirectory : process.cwd()
}

/** Resolves symlinks in every existing component; a missing tail is appended as written. */
async function realPathOf(absolute: string, hops = 0): Promise<{ real: string; exists: boolean }> {
  if (hops > MAX_LINK_HOPS) throw loop(absolute)
  try {
    return { real: await realpath(absolute), exists: true }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ELOOP') throw loop(absolute)
    if (code !== 'ENOENT' && code !== 'ENOTDIR') throw error
  }
  const parent = dirname(absolute)
  if (parent === absolute) return { real: absolute, exists: false }
  // A dangling symlink: where it points is where a write would land, so that is what is checked.
  const stat = await lstat(absolute).catch(() => undefined)
  if (stat?.isSymbolicLink()) {
    const target = await readlink(absolute)
    return realPathOf(resolve(dirname(absolute), target), hops + 1)
  }
  const { real } = await realPathOf(parent, hops)
  return { real: join(real, basename(absolute)), exists: false }
}

function loop(path: string): ToolPathError {
  return new ToolPathError('invalid_path', `"${path}" is a symlink loop.`, 'symlink_loop')
}

/** The policy of one call, with every listed path resolved once. */
export interface PathPolicy {
  /** The chat folder (real), when restriction confines tools to it. */
  confinedTo: string | null
  allowed: string[]
  denied: string[]
  /** Why `real` may not be used, or undefined when it may. */
  refusal(real: string): { rule: string; message: string } | undefined
  /**
   * How a result names a path, so it can be passed straight back into another tool: relative to
   * the chat folder in agent mode, absolute when no folder is in play or the path lies outside it.
   */
  display(real: string): string
}

/**
 * A settings entry as a real path; a relative one starts where relative arguments start. `known`
 * holds the folders resolved so far in this policy, which many entries share (~/.config, ~/Library).
 *
 * Synchronous on purpose, unlike realPathOf: the default lists name some fifty places, most absent,
 * and the promise API reports every absence with an exception — 2.5 ms a call, most of a file
 * tool's time. lstatSync with throwIfNoEntry reports it with none, in microseconds. Nothing new can
 * block: these are home-folder metadata calls, and SQLite reads the data folder there synchronously.
 */
function realListEntry(absolute: string, known: Map<string, string>, hops = 0): string {
  if (hops > MAX_LINK_HOPS) throw loop(absolute)
  const cached = known.get(absolute)
  if (cached !== undefined) return cached
  let stat: ReturnType<typeof lstatSync>
  try {
    stat = lstatSync(absolute, { throwIfNoEntry: false })
  } catch (error) {
    // A file where a folder of the path should be: nothing can exist below it, as with ENOENT.
    if ((error as NodeJS.ErrnoException).code !== 'ENOTDIR') throw error
  }
  let real: string
  if (stat) {
    real = realOfExisting(absolute, known, hops)
  } else {
    const parent = dirname(absolute)
    real = parent === absolute ? absolute : join(realListEntry(parent, known, hops), basename(absolute))
  }
  known.set(absolute, real)
  return real
}

/** An entry that exists (perhaps as a dangling symlink, which is followed to where a write would land). */
function realOfExisting(absolute: string, known: Map<string, string>, hops: number): string {
  try {
    return realpathSync.native(absolute)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ELOOP') throw loop(absolute)
    if (code !== 'ENOENT') throw error
  }
  return realListEntry(resolve(dirname(absolute), readlinkSync(absolute)), known, hops + 1)
}

/** A string-list setting's non-empty entries; anything else reads as an empty list. */
export function stringList(value: unknown): string[] {
  return Array.isArray(value)
    ? value.filter((item): item is string => typeof item === 'string' && item !== '')
    : []
}

/** What a call's path policy is made of: its settings, its folder and mode, the app's own folder. */
export type PathScope = Pick<
  ToolContext,
  'settings' | 'mode' | 'workingDirectory' | 'restrict' | 'protectedPaths'
>

export async function loadPathPolicy(context: PathScope): Promise<PathPolicy> {
  const { parameters } = context.settings
  const base = baseDirectory(context)
  const known = new Map<string, string>()
  const real = (path: string) => realListEntry(resolve(base, expandHome(path)), known)
  const denied = [
    ...context.protectedPaths,
    ...stringList(parameters.deniedPaths ?? DEFAULT_DENIED_PATHS),
  ].map(real)
  const allowed = stringList(parameters.allowedPaths).map(real)
  const restricted = context.mode === 'agent' && context.restrict && context.workingDirectory !== null
  const workingRoot =
    context.mode === 'agent' && context.workingDirectory ? real(context.workingDirectory) : null
  const confinedTo = restricted ? workingRoot : null
  // A search names thousands of paths below the folder: those are cut, not worked out by relative().
  const below = workingRoot && (workingRoot.endsWith(sep) ? workingRoot : workingRoot + sep)
  return policyFromData({ confinedTo, allowed, denied }, (real) => {
    if (!workingRoot || !below) return real
    if (real.startsWith(below)) return real.slice(below.length)
    return isInside(workingRoot, real) ? relative(workingRoot, real) || '.' : real
  })
}

/** What a policy is made of, as plain data: what a search worker is sent and rebuilds it from. */
export interface PathPolicyData {
  confinedTo: string | null
  allowed: string[]
  denied: string[]
}

export function policyData({ confinedTo, allowed, denied }: PathPolicy): PathPolicyData {
  return { confinedTo, allowed, denied }
}

/** The policy of `data`; `display` names paths (a worker never displays any, so real paths). */
export function policyFromData(
  { confinedTo, allowed, denied }: PathPolicyData,
  display: (real: string) => string = (real) => real,
): PathPolicy {
  return {
    confinedTo,
    display,
    allowed,
    denied,
    refusal(real) {
      const deniedBy = denied.find((entry) => isInsideReal(entry, real))
      if (deniedBy) {
        return { rule: 'deniedPaths', message: `"${real}" is inside the denied path "${deniedBy}".` }
      }
      if (confinedTo) {
        if (isInsideReal(confinedTo, real) || allowed.some((entry) => isInsideReal(entry, real)))
          return undefined
        return {
          rule: 'restriction',
          message: `"${real}" is outside the chat's folder "${confinedTo}"${allowed.length ? ' and the allowed paths' : ''}; agent mode confines tools to it.`,
        }
      }
      if (allowed.length > 0 && !allowed.some((entry) => isInsideReal(entry, real))) {
        return {
          rule: 'allowedPaths',
          message: `"${real}" is not inside any allowed path (${allowed.join(', ')}).`,
        }
      }
      return undefined
    },
  }
}

/**
 * Resolves a model-supplied path (absolute, `~`-prefixed, or relative to the base directory) to a
 * real path, without applying any policy: what a call will touch, as its description names it.
 * Throws ToolPathError for a path that cannot name anything (NUL, too long, a symlink loop).
 */
export async function resolveRealPath(
  input: string,
  context: Pick<PathScope, 'mode' | 'workingDirectory'>,
): Promise<ResolvedPath> {
  if (input.includes('\0'))
    throw new ToolPathError('invalid_path', 'The path contains a NUL byte.', 'nul_byte')
  if (input.length === 0) throw new ToolPathError('invalid_path', 'The path is empty.', 'empty')
  if (input.length > MAX_PATH_LENGTH) {
    throw new ToolPathError(
      'invalid_path',
      `The path is longer than ${MAX_PATH_LENGTH} characters.`,
      'too_long',
    )
  }
  const absolute = resolve(baseDirectory(context), expandHome(input))
  try {
    return await realPathOf(absolute)
  } catch (error) {
    if (ToolPathError.isInstance(error)) throw error
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ENAMETOOLONG')
      throw new ToolPathError('invalid_path', 'A component of the path is too long.', 'too_long')
    if (code === 'EACCES')
      throw new ToolPathError('path_denied', `No permission to reach "${absolute}".`, 'permissions')
    throw error
  }
}

/** resolveRealPath, then the policy. Throws ToolPathError saying which rule refused. */
export async function resolveAndValidatePath(
  input: string,
  context: PathScope,
  policy?: PathPolicy,
): Promise<ResolvedPath> {
  const resolved = await resolveRealPath(input, context)
  const refusal = (policy ?? (await loadPathPolicy(context))).refusal(resolved.real)
  if (refusal)
    throw new ToolPathError(
      'path_denied',
      `Refused: ${refusal.message} (rule: ${refusal.rule})`,
      refusal.rule,
    )
  return resolved
}

/** A file tool's call described: the path as written, and the real path it leads to. */
/** A path argument resolved, confined and checked against the tool's policy, as a person reads it too. */
export async function resolveTarget(
  input: string,
  context: PathScope,
): Promise<{ real: string; display: string }> {
  const policy = await loadPathPolicy(context)
  const { real } = await resolveAndValidatePath(input, context, policy)
  return { real, display: policy.display(real) }
}

/** A tool's `check` for a path it will use: refused now (outside the folder, denied) rather than once allowed. */
export async function checkPath(input: string, context: PathScope): Promise<void> {
  await resolveAndValidatePath(input, context)
}

export async function describePath(
  input: string,
  context: Pick<PathScope, 'mode' | 'workingDirectory'>,
  summary = input,
): Promise<{ summary: string; locations: string[] }> {
  return { summary, locations: [(await resolveRealPath(input, context)).real] }
}
