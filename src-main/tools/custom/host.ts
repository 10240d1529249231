/**
 * The host process of one tool folder: loads the person's tool modules with jiti and serves their
 * calls. It runs as its own process (Node's `fork`, Electron's utility process), so a tool that
 * loops or crashes takes down only this host, never the app or its turns. Programs a tool starts
 * (`api.exec`), its log and the person's answers go through the app, which outlives the host.
 */
import { AsyncLocalStorage } from 'node:async_hooks'
import { randomUUID } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { inspect } from 'node:util'
import * as typebox from '@sinclair/typebox'
import { createJiti } from 'jiti'
import type {
  CustomTool,
  CustomToolAPI,
  CustomToolLogger,
  CustomToolResult,
  CustomToolSessionManager,
  CustomToolUI,
  ExecResult,
  PendingAction,
} from '../../../src-custom-tool/index'
import {
  ATELIER_CUSTOM_TOOLS_VERSION,
  type AtelierExports,
  defineTool,
  defineTools,
  FatalToolError,
  textResult,
} from '../../../src-custom-tool/index'
import type { CustomToolLoadError } from '../../../src-shared/custom-tools'
import { AtelierError, errorMessage } from '../../../src-shared/errors'
import type { ToolKind } from '../../../src-shared/tools'
import type {
  FromHost,
  HostedResult,
  HostedToolInfo,
  PartialResult,
  SessionEvent,
  ToHost,
} from './host-protocol'

/** Electron's utility process has a port; a Node fork has `process.send`. */
interface ParentPort {
  on(event: 'message', listener: (message: { data: unknown }) => void): void
  postMessage(message: unknown): void
}
const parentPort = (process as unknown as { parentPort?: ParentPort }).parentPort

function send(message: FromHost): void {
  if (parentPort) parentPort.postMessage(message)
  else process.send?.(message)
}

function onMessage(listener: (message: ToHost) => void): void {
  if (parentPort) parentPort.on('message', ({ data }) => listener(data as ToHost))
  else process.on('message', (message) => listener(message as ToHost))
}

// The app died without ending this host (a crash, Ctrl-C in `atelier tool`): a module's timer or
// server must not keep it running on its own.
process.on('disconnect', () => process.exit(0))

/** `api.atelier`: what a module could import from 'atelier', handed over so it needs no import. */
const ATELIER_EXPORTS: AtelierExports = {
  ATELIER_CUSTOM_TOOLS_VERSION,
  textResult,
  defineTool,
  defineTools,
  FatalToolError,
}

const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/
const KINDS: ReadonlySet<string> = new Set(['read', 'edit', 'execute', 'network', 'other'])

interface LoadedTool {
  tool: CustomTool
  file: string
}

/** What the code running now serves: a call (its id and folder) or, while loading, its module. */
interface Scope {
  file: string
  callId?: string
  cwd: string
}

const scope = new AsyncLocalStorage<Scope>()
const tools = new Map<string, LoadedTool>()
const calls = new Map<string, AbortController>()
const waiting = new Map<string, (message: ToHost) => void>()
let home = process.cwd()
let hasUI = false
/**
 * Settles once the modules are loaded and heard `start`: a session event sent while they load (a
 * turn that began as the host started) waits for it, or no module would be there to hear it.
 */
let ready: Promise<void> = Promise.resolve()

const noUI: CustomToolUI = { notify: () => {} }
let ui: CustomToolUI = noUI

/** The app tells the host once its UI is there (never for `atelier run` and `atelier tool`). */
function setUIContext(next: CustomToolUI): void {
  ui = next
}

function log(file: string, level: 'debug' | 'info' | 'warn' | 'error', parts: unknown[]): void {
  const message = parts.map((part) => (typeof part === 'string' ? part : inspect(part))).join(' ')
  send({ type: 'log', file, level, message })
}

// A module's console output goes to its log, like its logger's.
for (const [method, level] of [
  ['log', 'info'],
  ['info', 'info'],
  ['debug', 'debug'],
  ['warn', 'warn'],
  ['error', 'error'],
] as const) {
  const original = console[method].bind(console)
  console[method] = (...parts: unknown[]) => {
    const file = scope.getStore()?.file
    if (file) log(file, level, parts)
    else original(...parts)
  }
}

function loggerFor(file: string): CustomToolLogger {
  return {
    debug: (...parts) => log(file, 'debug', parts),
    info: (...parts) => log(file, 'info', parts),
    warn: (...parts) => log(file, 'warn', parts),
    error: (...parts) => log(file, 'error', parts),
  }
}

/** Waits for the app's answer to a request of this host. */
function request<Answer extends ToHost>(key: string, message: FromHost): Promise<Answer> {
  return new Promise((done) => {
    waiting.set(key, (answer) => done(answer as Answer))
    send(message)
  })
}

function exec(command: string, args: string[], options: Parameters<CustomToolAPI['exec']>[2] = {}) {
  if (typeof command !== 'string' || !Array.isArray(args) || args.some((arg) => typeof arg !== 'string')) {
    return Promise.reject(new TypeError('exec(command, args): command is a string, args an array of strings'))
  }
  const current = scope.getStore()
  const execId = randomUUID()
  const { signal } = options
  if (signal?.aborted)
    return Promise.resolve<ExecResult>({ stdout: '', stderr: '', code: null, killed: true })
  const cancel = () => send({ type: 'exec-cancel', execId })
  signal?.addEventListener('abort', cancel, { once: true })
  const cwd = resolve(current?.cwd ?? home, options.cwd ?? '.')
  return request<Extract<ToHost, { type: 'exec-done' }>>(execId, {
    type: 'exec',
    id: current?.callId ?? null,
    execId,
    command,
    args,
    cwd,
    timeoutMs: typeof options.timeoutMs === 'number' ? options.timeoutMs : null,
  }).then(({ result }) => {
    signal?.removeEventListener('abort', cancel)
    return result
  })
}

/** A chat's messages, read through the app (which holds the conversation). */
function sessionManagerOf(chatId: string | null): CustomToolSessionManager {
  return {
    getMessages: async () => {
      if (chatId === null) return []
      const readId = randomUUID()
      const answer = await request<Extract<ToHost, { type: 'messages-read' }>>(readId, {
        type: 'messages',
        readId,
        chatId,
      })
      return answer.messages
    },
  }
}

async function pushPendingAction(action: PendingAction): Promise<boolean> {
  const current = scope.getStore()
  if (!current?.callId) {
    throw new AtelierError('unsupported', 'pushPendingAction works only during a call of the tool.')
  }
  if (!hasUI) {
    throw new AtelierError(
      'unsupported',
      'Nobody can confirm a pending action here: atelier run and atelier tool have no UI. Run the tool in the Atelier app.',
    )
  }
  if (typeof action?.label !== 'string' || typeof action.apply !== 'function') {
    throw new TypeError('pushPendingAction(action): action has a label and an apply function')
  }
  const confirmId = randomUUID()
  const answer = await request<Extract<ToHost, { type: 'confirmed' }>>(confirmId, {
    type: 'confirm',
    id: current.callId,
    confirmId,
    action: {
      label: action.label,
      ...(typeof action.detail === 'string' && { detail: action.detail }),
      ...(typeof action.preview === 'string' && { preview: action.preview }),
    },
  })
  if (answer.error) throw new AtelierError('unsupported', answer.error)
  if (!answer.accepted) return false
  await action.apply()
  return true
}

function apiFor(file: string): CustomToolAPI {
  return {
    get cwd() {
      return scope.getStore()?.cwd ?? home
    },
    exec,
    get ui() {
      return ui
    },
    get hasUI() {
      return hasUI
    },
    logger: loggerFor(file),
    typebox,
    atelier: ATELIER_EXPORTS,
    pushPendingAction,
  }
}

/**
 * A syntax error names its place (`file:line:column`, column from 0); an import that does not
 * resolve, the line that imports it; other errors their top frame in the file.
 */
function loadError(error: unknown, file: string): CustomToolLoadError {
  const message = errorMessage(error)
  const at = /:(\d+):(\d+)\s*$/.exec(message)
  // `ParseError: Unexpected token \n /path/x.ts:3:19`: the place (its column from 0) goes in its own fields.
  if (at) {
    const text = message
      .slice(0, at.index)
      .replace(/\s*\S+$/, '')
      .trim()
    return { message: text || message.trim(), line: Number(at[1]), column: Number(at[2]) + 1 }
  }
  const missing = /^Cannot find module '([^']+)'/.exec(message)?.[1]
  const importLine = missing === undefined ? undefined : lineQuoting(file, missing)
  if (importLine) return { message, ...importLine }
  const frame =
    error instanceof Error ? error.stack?.split('\n').find((line) => line.includes(file)) : undefined
  const place = frame && /:(\d+):(\d+)\)?\s*$/.exec(frame)
  return place ? { message, line: Number(place[1]), column: Number(place[2]) } : { message }
}

/** Where the file first writes this specifier in quotes (a resolve error carries no place of its own). */
function lineQuoting(file: string, specifier: string): { line: number; column: number } | undefined {
  let lines: string[]
  try {
    lines = readFileSync(file, 'utf8').split('\n')
  } catch {
    return undefined
  }
  for (const [index, text] of lines.entries()) {
    const column = ["'", '"', '`']
      .map((quote) => text.indexOf(quote + specifier + quote))
      .find((at) => at >= 0)
    if (column !== undefined) return { line: index + 1, column: column + 1 }
  }
  return undefined
}

function toolProblem(tool: unknown): string | undefined {
  if (typeof tool !== 'object' || tool === null) return 'the factory returned something that is not a tool'
  const { name, label, description, parameters, execute, kind } = tool as Record<string, unknown>
  if (typeof name !== 'string' || !TOOL_NAME.test(name))
    return `a tool's name must match ${TOOL_NAME} (got ${JSON.stringify(name)})`
  if (typeof label !== 'string') return `the tool "${name}" has no label`
  if (typeof description !== 'string') return `the tool "${name}" has no description`
  if (
    typeof parameters !== 'object' ||
    parameters === null ||
    (parameters as { type?: unknown }).type !== 'object'
  )
    return `the parameters of "${name}" are not an object schema (Type.Object)`
  if (typeof execute !== 'function') return `the tool "${name}" has no execute function`
  if (kind !== undefined && !KINDS.has(kind as string))
    return `the kind of "${name}" is not one of ${[...KINDS].join(', ')}`
  return undefined
}

async function load(files: string[], aliases: Record<string, string>): Promise<void> {
  const jiti = createJiti(import.meta.url, { moduleCache: false, alias: aliases })
  const loaded: HostedToolInfo[] = []
  const errors: { file: string; error: CustomToolLoadError }[] = []
  for (const file of files) {
    try {
      const made = await scope.run({ file, cwd: home }, async () => {
        const module = (await jiti.import(file)) as Record<string, unknown> | ((...args: never[]) => unknown)
        const factory = typeof module === 'function' ? module : module.default
        if (typeof factory !== 'function') {
          throw new AtelierError(
            'invalid_custom_tool',
            'The module exports no factory: export default (api) => ({ name, … })',
          )
        }
        return (factory as (api: CustomToolAPI) => unknown)(apiFor(file))
      })
      const list = Array.isArray(made) ? made : [made]
      const problem = list.map(toolProblem).find(Boolean)
      if (problem)
        throw new AtelierError('invalid_custom_tool', `The factory's result is not usable: ${problem}.`)
      for (const tool of list as CustomTool[]) {
        // A name twice keeps its first tool; the app reports the clash, naming both files.
        if (!tools.has(tool.name)) tools.set(tool.name, { tool, file })
        loaded.push({
          name: tool.name,
          label: tool.label,
          description: tool.description,
          // TypeBox's symbols fall away: what is left is the JSON Schema.
          parameters: JSON.parse(JSON.stringify(tool.parameters)),
          kind: (tool.kind ?? 'other') as ToolKind,
          file,
        })
      }
    } catch (error) {
      errors.push({ file, error: loadError(error, file) })
    }
  }
  send({ type: 'loaded', tools: loaded, errors })
  await session({ reason: 'start' })
}

async function session(event: SessionEvent | { reason: 'start' | 'shutdown' }, cwd = home): Promise<void> {
  const sessionManager = sessionManagerOf('chatId' in event ? (event.chatId ?? null) : null)
  for (const { tool, file } of tools.values()) {
    if (!tool.onSession) continue
    try {
      await scope.run({ file, cwd }, () => tool.onSession?.({ ...event }, { cwd, hasUI, sessionManager }))
    } catch (error) {
      log(file, 'warn', [`onSession(${event.reason}) of ${tool.name} failed:`, error])
    }
  }
}

/** A hook's Markdown, or undefined when it has none, returns none or fails (logged). */
function rendered(file: string, name: string, render: () => string | undefined): string | undefined {
  try {
    const text = render()
    return typeof text === 'string' ? text : undefined
  } catch (error) {
    log(file, 'warn', [`${name} failed; the card shows the default:`, error])
    return undefined
  }
}

/**
 * A FatalToolError by its name: the module's own copy of `atelier` (or its own class, as other
 * frameworks name it) is not this host's, so `instanceof` cannot tell.
 */
function isFatal(error: unknown): error is Error {
  return error instanceof Error && error.name === 'FatalToolError'
}

function causeText(cause: unknown): string {
  return cause instanceof Error ? (cause.stack ?? String(cause)) : inspect(cause)
}

function textOf(result: CustomToolResult): string {
  return result.content
    .filter((part) => part.type === 'text')
    .map((part) => (part as { text: string }).text)
    .join('\n')
}

function isResult(value: unknown): value is CustomToolResult {
  return typeof value === 'object' && value !== null && Array.isArray((value as CustomToolResult).content)
}

async function call(message: Extract<ToHost, { type: 'call' }>): Promise<void> {
  const { id, tool: name, args, context } = message
  const loaded = tools.get(name)
  if (!loaded) {
    send({ type: 'failed', id, message: `The tool "${name}" is not loaded in this host.` })
    return
  }
  const { tool, file } = loaded
  const controller = new AbortController()
  calls.set(id, controller)
  const { theme } = context
  const renderCall = tool.renderCall
  const callText =
    renderCall && rendered(file, 'renderCall', () => renderCall.call(tool, args as never, theme))
  const renderResult = tool.renderResult
  const render = (
    result: CustomToolResult,
    options: Parameters<NonNullable<CustomTool['renderResult']>>[1],
  ) =>
    renderResult &&
    rendered(file, 'renderResult', () => renderResult.call(tool, result, options, theme, args))
  let spinnerFrame = 0
  const onUpdate = (partial: CustomToolResult) => {
    if (!calls.has(id) || !isResult(partial)) return
    const update: PartialResult = { text: textOf(partial) }
    if (callText) update.call = callText
    const view = render(partial, { expanded: true, isPartial: true, spinnerFrame: spinnerFrame++ })
    if (view) update.rendered = view
    send({ type: 'update', id, partial: update })
  }
  const ctx = {
    toolCallId: context.toolCallId,
    chatId: context.chatId,
    cwd: context.cwd,
    mode: context.mode,
    hasUI,
    settings: context.settings,
    model: context.model,
    sessionManager: sessionManagerOf(context.chatId),
    abort: (reason?: string) =>
      send({ type: 'abort-turn', id, reason: reason ?? `The tool ${name} stopped the turn.` }),
  }
  try {
    const value = await scope.run({ file, callId: id, cwd: context.cwd }, () =>
      tool.execute(context.toolCallId, args as never, onUpdate, ctx, controller.signal),
    )
    const result: CustomToolResult = isResult(value)
      ? value
      : {
          content: [
            { type: 'text', text: typeof value === 'string' ? value : JSON.stringify(value ?? null) },
          ],
        }
    const hosted: HostedResult = {
      text: textOf(result),
      isError: result.isError === true,
      ...(result.details !== undefined && { details: result.details }),
      images: result.content.flatMap((part) =>
        part.type === 'image' ? [{ data: part.data, mimeType: part.mimeType }] : [],
      ),
    }
    if (callText) hosted.call = callText
    const collapsed = render(result, { expanded: false, isPartial: false })
    const expanded = render(result, { expanded: true, isPartial: false })
    if (collapsed) hosted.collapsed = collapsed
    if (expanded) hosted.expanded = expanded
    send({ type: 'result', id, result: hosted })
  } catch (error) {
    if (isFatal(error)) {
      // The cause stays in the module's log and the app's; the model never reads either.
      if (error.cause !== undefined)
        log(file, 'error', [`${name} failed fatally: ${error.message}; cause:`, error.cause])
      const cause = error.cause === undefined ? undefined : causeText(error.cause)
      send({ type: 'failed', id, message: error.message, fatal: cause === undefined ? {} : { cause } })
    } else send({ type: 'failed', id, message: errorMessage(error) })
  } finally {
    calls.delete(id)
  }
}

onMessage((message) => {
  switch (message.type) {
    case 'load':
      home = message.home
      hasUI = message.hasUI
      if (hasUI) {
        setUIContext({
          notify: (text, level = 'info') =>
            send({ type: 'notify', id: scope.getStore()?.callId ?? null, level, message: String(text) }),
        })
      }
      ready = load(message.files, message.aliases)
      return
    case 'call':
      void call(message)
      return
    case 'abort':
      calls.get(message.id)?.abort(new Error(message.reason))
      return
    case 'exec-done':
      waiting.get(message.execId)?.(message)
      waiting.delete(message.execId)
      return
    case 'confirmed':
      waiting.get(message.confirmId)?.(message)
      waiting.delete(message.confirmId)
      return
    case 'session':
      void ready.then(() => session(message.event, message.cwd))
      return
    case 'messages-read':
      waiting.get(message.readId)?.(message)
      waiting.delete(message.readId)
      return
    case 'ping':
      send({ type: 'pong' })
      return
    case 'shutdown':
      void session({ reason: 'shutdown' }).then(() => send({ type: 'shutdown-done' }))
      return
  }
})

// A tool's stray rejection is its own failure, logged, not the host's end.
process.on('unhandledRejection', (reason) => {
  const file = scope.getStore()?.file
  if (file) log(file, 'error', ['Unhandled rejection:', reason])
})
