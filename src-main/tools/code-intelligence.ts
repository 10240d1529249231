/**
 * What the code tools (diagnostics, definition, references, hover, symbols) ask of the language
 * servers, without knowing how they run: the servers themselves live in `src-main/lsp/`. Paths are
 * real and absolute; lines and columns 1-based, as read_file numbers them. Below, what the code
 * tools share: their position parameters, settings, scope and how they name places.
 */
import { readFileSync } from 'node:fs'
import { dirname } from 'node:path'
import { type Static, Type } from '@sinclair/typebox'
import type { FileDiagnostic } from '../../src-shared/code-intelligence'
import type { ToolSettingsMetadata } from '../../src-shared/tools'
import { ToolError } from './errors'
import {
  baseDirectory,
  loadPathPolicy,
  type PathPolicy,
  pathArgument,
  pathToolSettings,
  resolveAndValidatePath,
} from './paths'
import { MAX_LINE_CHARS } from './search/grep-scan'
import { integerParameter, TIMEOUT_SECONDS } from './settings-policy'
import type { ToolContext } from './types'

/** The tools that ask language servers: offered only in a folder whose kinds of files a server serves. */
export const CODE_TOOLS: ReadonlySet<string> = new Set([
  'diagnostics',
  'definition',
  'references',
  'hover',
  'symbols',
])

/** A place in a file. */
export interface CodeLocation {
  path: string
  line: number
  column: number
}

/** A named thing a server found: a function, a class, a variable. */
export interface CodeSymbol extends CodeLocation {
  name: string
  /** `function`, `class`, `method`, … */
  kind: string
  /** What it sits in (a class for a method), where the server says. */
  container?: string
}

export interface CodeIntelligence {
  /**
   * The diagnostics of one file as it is on disk, or, without a path, of every file the folder's
   * running servers have reported on. `path` in each is real.
   */
  diagnostics(folder: string, path: string | undefined, signal: AbortSignal): Promise<FileDiagnostic[]>
  definition(folder: string, at: CodeLocation, signal: AbortSignal): Promise<CodeLocation[]>
  references(folder: string, at: CodeLocation, signal: AbortSignal): Promise<CodeLocation[]>
  /** The server's hover text at a place (a type, a signature, its documentation), or none. */
  hover(folder: string, at: CodeLocation, signal: AbortSignal): Promise<string | undefined>
  /** The symbols of one file, or those of the folder's project whose names match `query`. */
  symbols(
    folder: string,
    target: { path: string } | { query: string },
    signal: AbortSignal,
  ): Promise<CodeSymbol[]>
}

/** The parameters of a tool that asks about one place in a file. */
export const CodePositionParameters = Type.Object(
  {
    path: pathArgument('file'),
    line: Type.Integer({ minimum: 1, description: 'The line, from 1, as read_file numbers it.' }),
    column: Type.Integer({
      minimum: 1,
      description: 'The column, from 1: the position of a character of the name in its line.',
    }),
  },
  { additionalProperties: false },
)

/** Settings of a code tool: the path policy and a timeout (a server's first start can take seconds). */
export function codeToolSettings(title: string, description: string): ToolSettingsMetadata {
  return pathToolSettings(title, description, {
    defaults: { timeoutSeconds: TIMEOUT_SECONDS.fallback },
    descriptors: [
      integerParameter(
        'timeoutSeconds',
        'Timeout',
        'How long a call waits for the language server, its start included.',
        TIMEOUT_SECONDS,
        's',
      ),
    ],
  })
}

/** Where a code tool works: the language servers, their folder, and how results name paths. */
export interface CodeScope {
  servers: CodeIntelligence
  /** The chat's folder in agent mode; without one, the folder of the file asked about. */
  folder: string
  policy: PathPolicy
}

/** The scope of a code tool's call, and the real path of `path` under the tool's path policy. */
export async function codeScope(context: ToolContext, path?: string): Promise<CodeScope & { real?: string }> {
  const servers = context.codeIntelligence
  if (!servers) throw new ToolError('not_enabled', 'No language servers are available here.')
  const policy = await loadPathPolicy(context)
  const real = path === undefined ? undefined : (await resolveAndValidatePath(path, context, policy)).real
  const folder =
    context.mode === 'agent' && context.workingDirectory
      ? context.workingDirectory
      : real !== undefined
        ? dirname(real)
        : baseDirectory(context)
  return { servers, folder, policy, ...(real !== undefined && { real }) }
}

/** Where the symbol at a place is defined, or used: what the server says, and how to name the places. */
export async function symbolPlaces(
  args: Static<typeof CodePositionParameters>,
  context: ToolContext,
  ask: 'definition' | 'references',
): Promise<{ found: CodeLocation[]; policy: PathPolicy }> {
  const { servers, folder, policy, real = args.path } = await codeScope(context, args.path)
  const at = { path: real, line: args.line, column: args.column }
  return { found: await servers[ask](folder, at, context.signal), policy }
}

/** Found places as grep reports lines: the file as read_file takes it, the line, the column, the line's text. */
export function placesWithText(
  places: readonly CodeLocation[],
  policy: PathPolicy,
): { file: string; line: number; column: number; text: string }[] {
  const files = new Map<string, string[]>()
  const lineOf = (path: string, line: number) => {
    if (!files.has(path)) {
      let lines: string[] = []
      try {
        lines = readFileSync(path, 'utf8').split('\n')
      } catch {
        // gone since the server answered: the place is still worth naming
      }
      files.set(path, lines)
    }
    const text = files.get(path)?.[line - 1]?.trim() ?? ''
    return text.length > MAX_LINE_CHARS ? `${text.slice(0, MAX_LINE_CHARS)}…` : text
  }
  return places.map((place) => ({
    file: policy.display(place.path),
    line: place.line,
    column: place.column,
    text: lineOf(place.path, place.line),
  }))
}
