/**
 * Stage 6, shape: whatever the tool returned or threw becomes the typed result — the text the model
 * reads, cut at the cap, and what only the UI and hooks see.
 */

import { errorMessage } from '../../../src-shared/errors'
import type { ToolDisplay } from '../../../src-shared/tools'
import { ToolArgumentError, ToolError, type ToolErrorType } from '../errors'
import type { ToolOutput } from '../types'
import { Timeout } from './run'
import type { ToolExecutionResult } from './types'

/**
 * A string is the observation itself; a ToolOutput is taken as is — keys it does not know
 * ignored (logged once), so a tool's own extras never cost it its `isError`; anything else is JSON.
 * `tool` names the tool in that log line.
 */
export function toToolOutput(value: unknown, tool = 'A tool'): ToolOutput {
  if (typeof value === 'string') return { content: value }
  if (isToolOutput(value)) return knownKeys(value, tool)
  return jsonOutput(value)
}

/** Any value as the JSON text the model reads. */
function jsonOutput(value: unknown): ToolOutput {
  if (value === undefined || value === null) return { content: '(no output)' }
  try {
    const content = JSON.stringify(value, null, 2) ?? String(value)
    // A result object that says it holds only part of what there was (a window, the first N) is cut.
    const truncated = (value as { truncated?: unknown }).truncated === true
    return truncated ? { content, truncated } : { content }
  } catch {
    return { content: String(value) }
  }
}

/**
 * A built-in's result object as the JSON text the model reads — whatever keys it has, a `content`
 * among them (a file's text) — with a display payload for the UI alongside: what built-ins use to
 * show their results as files, matches and trees rather than as JSON.
 */
export function withDisplay(value: object, display: ToolDisplay | undefined): ToolOutput {
  const output = jsonOutput(value)
  return display ? { ...output, display } : output
}

const OUTPUT_KEYS = new Set(['content', 'isError', 'errorType', 'truncated', 'display', 'data'])

function isToolOutput(value: unknown): value is ToolOutput {
  if (typeof value !== 'object' || value === null || typeof (value as ToolOutput).content !== 'string')
    return false
  const { isError } = value as ToolOutput
  return isError === undefined || typeof isError === 'boolean'
}

/** The extra keys already logged, per tool: a tool that always sends one is logged once, not per call. */
const loggedExtras = new Set<string>()

function knownKeys(output: ToolOutput, tool: string): ToolOutput {
  const extras = Object.keys(output).filter((key) => !OUTPUT_KEYS.has(key))
  if (extras.length === 0) return output
  const logged = `${tool}\0${extras.join(',')}`
  if (!loggedExtras.has(logged)) {
    loggedExtras.add(logged)
    console.warn(`${tool} returned keys a tool result does not have, ignored: ${extras.join(', ')}.`)
  }
  return Object.fromEntries(Object.entries(output).filter(([key]) => OUTPUT_KEYS.has(key))) as ToolOutput
}

/** What the model reads of a failure: the tool's own words, or how the executor stopped it. */
export function failureOutput(
  name: string,
  error: unknown,
  signal?: AbortSignal,
  timeoutSeconds?: number,
): ToolOutput & { errorType: ToolErrorType } {
  if (signal?.aborted && signal.reason instanceof Timeout) {
    return {
      content: `${name} timed out after ${timeoutSeconds}s and was stopped.`,
      isError: true,
      errorType: 'timeout',
    }
  }
  if (signal?.aborted) {
    return { content: `${name} was cancelled by the user.`, isError: true, errorType: 'aborted' }
  }
  if (ToolArgumentError.isInstance(error)) {
    return {
      content: `Invalid arguments for ${name}: ${error.message}. Fix the arguments and call ${name} again.`,
      isError: true,
      errorType: 'validation_failed',
    }
  }
  if (ToolError.isInstance(error)) return { content: error.message, isError: true, errorType: error.code }
  return { content: `${name} failed: ${errorMessage(error)}`, isError: true, errorType: 'execution_failed' }
}

/** The typed result: an error output keeps its type (`execution_failed` unless it says better). */
export function shapeResult(output: ToolOutput, durationMs: number, maxChars: number): ToolExecutionResult {
  const isError = output.isError ?? false
  const errorType = isError ? (output.errorType ?? 'execution_failed') : undefined
  const cut = truncate(output.content, maxChars)
  return {
    content: cut.content,
    isError,
    ...(errorType && { errorType }),
    truncated: cut.truncated || output.truncated === true,
    durationMs,
    ...(output.display && { display: output.display }),
    ...(output.data !== undefined && { data: output.data }),
  }
}

function truncate(content: string, max: number): { content: string; truncated: boolean } {
  if (content.length <= max) return { content, truncated: false }
  // Never split a surrogate pair.
  const end = /[\uD800-\uDBFF]/.test(content[max - 1] ?? '') ? max - 1 : max
  return {
    content: `${content.slice(0, end)}\n\n[Output truncated: showing ${end} of ${content.length} characters. Ask for less — a narrower range, pattern or path — to see the rest.]`,
    truncated: true,
  }
}
