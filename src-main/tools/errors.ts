/**
 * The tool layer's errors. Each is an AtelierError whose `code` says how the call failed, so it keeps
 * that code wherever it goes (a result the model reads, a contract method's rejection, the CLI). All
 * but FatalToolError end up as results the model reads: a failed call is an observation, not the end
 * of the turn.
 */
import { AtelierError, errorBrand } from '../../src-shared/errors'
import type { ToolErrorType } from '../../src-shared/tools'

export type { ToolErrorType }

const TOOL_ERROR = errorBrand('ToolError')

/**
 * A failure a tool reports in words the model can act on, with its type as its code. The executor
 * passes the message through verbatim: a tool picks the words ("Read it first", "No file at …").
 */
export class ToolError extends AtelierError {
  override readonly name: string = 'ToolError'
  declare readonly code: ToolErrorType

  constructor(code: ToolErrorType, message: string, data?: Record<string, unknown>) {
    super(code, message, data)
    TOOL_ERROR.mark(this)
  }

  static override isInstance(value: unknown): value is ToolError {
    return TOOL_ERROR.is(value)
  }
}

const TOOL_PATH_ERROR = errorBrand('ToolPathError')

/** A path was refused by the containment check, or names nothing. `rule` says which rule refused. */
export class ToolPathError extends ToolError {
  override readonly name = 'ToolPathError'
  declare readonly code: 'path_denied' | 'invalid_path' | 'not_found'

  constructor(
    code: 'path_denied' | 'invalid_path' | 'not_found',
    message: string,
    readonly rule?: string,
  ) {
    super(code, message, rule === undefined ? undefined : { rule })
    TOOL_PATH_ERROR.mark(this)
  }

  static override isInstance(value: unknown): value is ToolPathError {
    return TOOL_PATH_ERROR.is(value)
  }
}

const TOOL_ARGUMENT_ERROR = errorBrand('ToolArgumentError')

/** A model-supplied argument is present but wrong. Its message tells the model what to fix. */
export class ToolArgumentError extends ToolError {
  override readonly name: string = 'ToolArgumentError'
  declare readonly code: 'validation_failed'

  constructor(
    message: string,
    readonly argument?: string,
  ) {
    super('validation_failed', message, argument === undefined ? undefined : { argument })
    TOOL_ARGUMENT_ERROR.mark(this)
  }

  static override isInstance(value: unknown): value is ToolArgumentError {
    return TOOL_ARGUMENT_ERROR.is(value)
  }
}

const TOOL_PARAMETER_ERROR = errorBrand('ToolParameterError')

/** A settings parameter breaks a rule of its descriptor (unknown name, type, range, choices). */
export class ToolParameterError extends AtelierError {
  override readonly name = 'ToolParameterError'
  declare readonly code: 'invalid_parameters'

  constructor(
    message: string,
    readonly parameter: string,
    readonly rule: 'unknown' | 'type' | 'min' | 'max' | 'allowed_values',
  ) {
    super('invalid_parameters', message, { parameter, rule })
    TOOL_PARAMETER_ERROR.mark(this)
  }

  static override isInstance(value: unknown): value is ToolParameterError {
    return TOOL_PARAMETER_ERROR.is(value)
  }
}

/** A settings update was refused, saying which rule it broke. */
export class ToolSettingsError extends AtelierError {
  override readonly name = 'ToolSettingsError'

  constructor(
    code: 'invalid_parameters' | 'cannot_disable' | 'unknown_tool',
    message: string,
    data?: Record<string, unknown>,
  ) {
    super(code, message, data)
  }
}

const FATAL_TOOL_ERROR = errorBrand('FatalToolError')

/**
 * A failure the model cannot fix (a bug, an expired credential, a database down). It ends the run;
 * its message goes to the person, never into the model's context. `cause` — the error underneath,
 * with whatever internals it holds — goes to the log only (see `logFatal`).
 *
 * Tools in other processes raise it too: a custom tool's host sends it across as `fatal` (see
 * custom/host-protocol.ts), and any runner may return the envelope `{ isError: true, errorType:
 * 'fatal', content: message, data: { cause } }`, which the executor turns into this error.
 */
export class FatalToolError extends ToolError {
  override readonly name = 'FatalToolError'
  declare readonly code: 'fatal'

  constructor(message: string, options?: { cause?: unknown }) {
    super('fatal', message)
    if (options?.cause !== undefined) this.cause = options.cause
    FATAL_TOOL_ERROR.mark(this)
  }

  static override isInstance(value: unknown): value is FatalToolError {
    return FATAL_TOOL_ERROR.is(value)
  }
}

/**
 * A fatal failure's whole story for the log: the tool, its message, and the cause with its stack.
 * The log is for the person and whoever debugs; the model and the turn's stored error get the
 * message alone.
 */
export function logFatal(tool: string, error: FatalToolError): void {
  const cause = error.cause === undefined ? '' : `\nCaused by: ${describeCause(error.cause)}`
  console.error(`${tool} failed fatally: ${error.message}${cause}`)
}

function describeCause(cause: unknown): string {
  if (cause instanceof Error) return cause.stack ?? `${cause.name}: ${cause.message}`
  if (typeof cause === 'string') return cause
  try {
    return JSON.stringify(cause)
  } catch {
    return String(cause)
  }
}
