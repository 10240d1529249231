/**
 * The tool layer's errors. Each has a literal `code`; all but FatalToolError end up as results the
 * model reads ("failure is an observation").
 */
import { AtelierError } from '../../src-shared/errors'

/** How a tool call failed, as the model, the CLI and the UI see it. */
export type ToolErrorType =
  | 'unknown_tool'
  | 'not_enabled'
  | 'validation_failed'
  | 'blocked'
  | 'timeout'
  | 'aborted'
  | 'execution_failed'
  | 'path_denied'
  | 'invalid_path'
  | 'not_found'
  | 'not_read'

/**
 * A failure a tool reports in words the model can act on, with its type. The executor passes the
 * message through verbatim: a tool picks the words ("Read it first", "No file at …").
 */
const TOOL_ERROR = Symbol.for('atelier.ToolError')

export class ToolError extends Error {
  override readonly name: string = 'ToolError'
  /** Survives bundle copies, where `instanceof` does not. */
  readonly [TOOL_ERROR] = true

  constructor(
    readonly type: ToolErrorType,
    message: string,
  ) {
    super(message)
  }

  static isInstance(value: unknown): value is ToolError {
    return value instanceof Error && (value as ToolError)[TOOL_ERROR] === true
  }
}

/** A path was refused by the containment check, or names nothing. `rule` says which rule refused. */
export class ToolPathError extends ToolError {
  override readonly name = 'ToolPathError'

  constructor(
    type: 'path_denied' | 'invalid_path' | 'not_found',
    message: string,
    readonly rule?: string,
  ) {
    super(type, message)
  }
}

/** A model-supplied argument is present but wrong. Its message tells the model what to fix. */
const TOOL_ARGUMENT_ERROR = Symbol.for('atelier.ToolArgumentError')

export class ToolArgumentError extends Error {
  override readonly name: string = 'ToolArgumentError'
  readonly code = 'validation_failed'
  /** Survives bundle copies and subclasses with names of their own. */
  readonly [TOOL_ARGUMENT_ERROR] = true

  constructor(
    message: string,
    readonly argument?: string,
  ) {
    super(message)
  }

  static isInstance(value: unknown): value is ToolArgumentError {
    return value instanceof Error && (value as ToolArgumentError)[TOOL_ARGUMENT_ERROR] === true
  }
}

/** A settings parameter breaks a rule of its descriptor (unknown name, type, range, choices). */
export class ToolParameterError extends Error {
  override readonly name = 'ToolParameterError'

  constructor(
    message: string,
    readonly parameter: string,
    readonly rule: 'unknown' | 'type' | 'min' | 'max' | 'allowed_values',
  ) {
    super(message)
  }

  static isInstance(value: unknown): value is ToolParameterError {
    return value instanceof Error && value.name === 'ToolParameterError'
  }
}

/** A settings update was refused: the seed's 422. */
export class ToolSettingsError extends AtelierError {
  constructor(
    code: 'invalid_parameters' | 'cannot_disable' | 'unknown_tool',
    message: string,
    data?: Record<string, unknown>,
  ) {
    super(code, message, data)
  }
}

/**
 * A failure the model cannot fix (a bug, an expired credential, a database down). It ends the run;
 * its message goes to the user, never into the model's context.
 */
export class FatalToolError extends Error {
  override readonly name = 'FatalToolError'
  readonly code = 'fatal'

  static isInstance(value: unknown): value is FatalToolError {
    return value instanceof Error && value.name === 'FatalToolError'
  }
}
