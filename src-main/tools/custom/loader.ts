/**
 * Custom tools as a library, for a program of its own that wants Atelier's tool modules
 * (`import { discoverAndLoadCustomTools } from 'atelier'`): the same discovery (discovery.ts), the
 * same host process per folder (tool-host-process.ts) and the same rule for taken names
 * (`claimNames`) as the app's CustomToolService, without its database, trust list or registry. So a
 * project's own tool folders are never read here: trusting a repository is the app's to ask.
 */
import { randomUUID } from 'node:crypto'
import { homedir } from 'node:os'
import { resolve } from 'node:path'
import { ephemeralLedger } from '../../core/freshness-ledger'
import { validateToolArguments } from '../arg-parsing'
import { shellEnvironment } from '../builtin/shell'
import { discoverToolFolders, type FoundFolder } from './discovery'
import type { HostedToolInfo } from './host-protocol'
import { renderTheme } from './render-theme'
import { nodeHost, ToolHostProcess } from './tool-host-process'

/** What a library call gives back: the model's text, whether it failed, and the tool's details. */
export interface CustomToolCallResult {
  content: string
  isError: boolean
  details?: unknown
}

/** A loaded tool as the host said it (name, label, description, JSON Schema, kind, module), and its calls. */
export interface LoadedCustomTool extends HostedToolInfo {
  /**
   * Runs a call in the module's host, its arguments checked against `parameters` first. Rejects
   * with a FatalToolError when the tool raises one.
   */
  execute(
    args: unknown,
    options?: { signal?: AbortSignal; cwd?: string; timeoutMs?: number },
  ): Promise<CustomToolCallResult>
}

/** A file that gave no tool, or a tool refused: the file, and what was wrong, with its place when known. */
export interface CustomToolProblem {
  file: string
  message: string
  line?: number
  column?: number
}

export interface LoadedCustomTools {
  tools: LoadedCustomTool[]
  problems: CustomToolProblem[]
  /** Ends the hosts (their modules' `onSession(shutdown)` first). */
  close(): Promise<void>
}

/** The longest a library call may take unless it says otherwise: the app's default tool timeout. */
const DEFAULT_TIMEOUT_MS = 30_000

/**
 * Loads the modules at `paths` (files or folders; `~` expanded, relative ones against `cwd`), each
 * folder in a host process of its own. A name given twice keeps its first tool.
 */
export function loadCustomTools(paths: readonly string[], cwd: string): Promise<LoadedCustomTools> {
  const { folders } = discoverToolFolders({
    home: homedir(),
    project: null,
    configuredPaths: absolute(paths, cwd),
  })
  return loadFolders(
    folders.filter((folder) => folder.origin === 'configured'),
    cwd,
    new Set(),
  )
}

/**
 * Finds and loads the person's tool modules as Atelier does — `~/.atelier/tools`, `~/.claude/tools`,
 * `~/.codex/tools`, installed plugins — and the modules at `paths`, in that order. A tool named like
 * one of `builtInNames`, or like a tool loaded before it, is refused, and the refusal is a problem
 * naming both.
 */
export function discoverAndLoadCustomTools(
  paths: readonly string[],
  cwd: string,
  builtInNames: readonly string[],
): Promise<LoadedCustomTools> {
  const { folders } = discoverToolFolders({
    home: homedir(),
    project: null,
    configuredPaths: absolute(paths, cwd),
  })
  return loadFolders(folders, cwd, new Set(builtInNames))
}

/**
 * Which of a folder's tools may take their names: not one `heldBy` says is taken (by a built-in, an
 * earlier module). The app's registry and the library both decide by it.
 */
export function claimNames(
  tools: readonly HostedToolInfo[],
  heldBy: (name: string) => string | undefined,
): { claimed: HostedToolInfo[]; refused: { tool: HostedToolInfo; heldBy: string }[] } {
  const claimed: HostedToolInfo[] = []
  const refused: { tool: HostedToolInfo; heldBy: string }[] = []
  for (const tool of tools) {
    const holder = heldBy(tool.name) ?? claimed.find((each) => each.name === tool.name)?.file
    if (holder === undefined) claimed.push(tool)
    else refused.push({ tool, heldBy: holder })
  }
  return { claimed, refused }
}

/** A relative path is the caller's `cwd`'s: discovery reads relative paths against a project only. */
function absolute(paths: readonly string[], cwd: string): string[] {
  return paths.map((path) => (path === '~' || path.startsWith('~/') ? path : resolve(cwd, path)))
}

async function loadFolders(
  folders: FoundFolder[],
  cwd: string,
  builtIns: ReadonlySet<string>,
): Promise<LoadedCustomTools> {
  const hosts: ToolHostProcess[] = []
  const tools: LoadedCustomTool[] = []
  const problems: CustomToolProblem[] = []
  const holders = new Map<string, string>()
  for (const folder of folders) {
    for (const file of folder.files) {
      if (file.kind === 'metadata')
        problems.push({ file: file.path, message: 'Metadata: listed, never run.' })
      else if (file.duplicateOf)
        problems.push({
          file: file.path,
          message: `The same file as ${file.duplicateOf}, which loads instead.`,
        })
    }
    const files = folder.files
      .filter((file) => file.kind === 'module' && !file.duplicateOf)
      .map((file) => file.path)
    if (files.length === 0) continue
    const host = new ToolHostProcess({
      files,
      admit: (candidates) => candidates,
      hasUI: false,
      home: cwd,
      spawn: nodeHost,
      env: shellEnvironment(process.env, { passSecrets: false, passEnvironment: [] }),
      // No log files here: a module's warnings and errors go to the program's stderr.
      log: (file, level, message) => {
        if (level === 'warn' || level === 'error') console.error(`${file}: ${message}`)
      },
      hostLog: () => {},
      onStateChange: () => {},
      theme: () => renderTheme('light'),
      messages: () => [],
    })
    hosts.push(host)
    const outcome = await host.load().catch((error: unknown) => ({
      tools: [],
      errors: files.map((file) => ({
        file,
        error: { message: `The tool host stopped while loading: ${error}` },
      })),
    }))
    problems.push(...outcome.errors.map(({ file, error }) => ({ file, ...error })))
    const { claimed, refused } = claimNames(outcome.tools, (name) =>
      builtIns.has(name) ? 'a built-in tool' : holders.get(name),
    )
    for (const { tool, heldBy } of refused) {
      problems.push({
        file: tool.file,
        message: `The tool "${tool.name}" is not loaded: ${heldBy} has that name.`,
      })
    }
    for (const tool of claimed) {
      holders.set(tool.name, tool.file)
      tools.push(libraryTool(tool, host, cwd))
    }
  }
  return { tools, problems, close: async () => void (await Promise.all(hosts.map((host) => host.stop()))) }
}

function libraryTool(tool: HostedToolInfo, host: ToolHostProcess, cwd: string): LoadedCustomTool {
  return {
    ...tool,
    execute: async (raw, { signal, cwd: callCwd = cwd, timeoutMs = DEFAULT_TIMEOUT_MS } = {}) => {
      const args = validateToolArguments(tool.name, tool.parameters, raw)
      const controller = new AbortController()
      const stop = () => controller.abort(signal?.reason)
      signal?.addEventListener('abort', stop, { once: true })
      const timer = setTimeout(() => controller.abort(new Error(`${tool.name} timed out`)), timeoutMs)
      try {
        const result = await host.run(
          {
            callId: randomUUID(),
            tool: tool.name,
            args,
            chatId: null,
            user: 'local',
            workingDirectory: callCwd,
            mode: 'agent',
            restrict: false,
            settings: { enabled: true, parameters: {} },
            deadline: Date.now() + timeoutMs,
          },
          {
            signal: controller.signal,
            onUpdate: () => {},
            ledger: ephemeralLedger(),
            beginCommit: () => {},
            protectedPaths: [],
          },
        )
        return {
          content: result.text,
          isError: result.isError,
          ...(result.details !== undefined && { details: result.details }),
        }
      } finally {
        clearTimeout(timer)
        signal?.removeEventListener('abort', stop)
      }
    },
  }
}
