/**
 * resolveAndValidatePath: the one containment check. Every path-taking tool, the shell's cwd,
 * custom tools and tool services go through it. Paths are compared as real paths (every symlink
 * resolved) with path.relative — never as string prefixes, so /w/proj-evil is not inside /w/proj.
 */
import { lstat, readlink, realpath } from 'node:fs/promises'
import { homedir } from 'node:os'
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path'
import { Type } from '@sinclair/typebox'
import type { ToolParameterDescriptor, ToolSettingsMetadata } from '../../src-shared/tools'
import { ToolPathError } from './errors'
import type { ToolContext } from './types'

/** Beyond this a path is refused outright; Linux's PATH_MAX. */
export const MAX_PATH_LENGTH = 4096
/** Link hops followed before a chain counts as a loop, as the kernel's ELOOP does. */
const MAX_LINK_HOPS = 40

export const DEFAULT_DENIED_PATHS = ['~/.ssh', '~/.gnupg', '~/.aws']

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

/** A settings entry as a real path; a relative one starts where relative arguments start. */
async function realListEntry(path: string, base: string): Promise<string> {
  return (await realPathOf(resolve(base, expandHome(path)))).real
}

function stringList(value: unknown): string[] {
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
  const real = (path: string) => realListEntry(path, base)
  const denied = await Promise.all(
    [...context.protectedPaths, ...stringList(parameters.deniedPaths ?? DEFAULT_DENIED_PATHS)].map(real),
  )
  const allowed = await Promise.all(stringList(parameters.allowedPaths).map(real))
  const restricted = context.mode === 'agent' && context.restrict && context.workingDirectory !== null
  const workingRoot =
    context.mode === 'agent' && context.workingDirectory ? await real(context.workingDirectory) : null
  const confinedTo = restricted ? workingRoot : null
  return {
    confinedTo,
    display: (real) =>
      workingRoot && isInside(workingRoot, real) ? relative(workingRoot, real) || '.' : real,
    allowed,
    denied,
    refusal(real) {
      const deniedBy = denied.find((entry) => isInside(entry, real))
      if (deniedBy) {
        return { rule: 'deniedPaths', message: `"${real}" is inside the denied path "${deniedBy}".` }
      }
      if (confinedTo) {
        if (isInside(confinedTo, real) || allowed.some((entry) => isInside(entry, real))) return undefined
        return {
          rule: 'restriction',
          message: `"${real}" is outside the chat's folder "${confinedTo}"${allowed.length ? ' and the allowed paths' : ''}; agent mode confines tools to it.`,
        }
      }
      if (allowed.length > 0 && !allowed.some((entry) => isInside(entry, real))) {
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
export async function describePath(
  input: string,
  context: Pick<PathScope, 'mode' | 'workingDirectory'>,
  summary = input,
): Promise<{ summary: string; locations: string[] }> {
  return { summary, locations: [(await resolveRealPath(input, context)).real] }
}
