/**
 * DynamicToolService, as the seed's base class: override `invoke`, then serve it over NATS or stdio.
 */
import type { InvokeContext, InvokeResult } from './calls'
import { type NatsServiceHandle, type ServeNatsOptions, serveNats } from './nats'
import { type ServeStdioOptions, type StdioServiceHandle, serveStdio } from './stdio'

/**
 * An error with a `type` for the error convention: thrown from `invoke`, it becomes
 * `{"error": {"type", "message"}, "response": "", "end_of_stream": true}`. Anything else thrown gets
 * type `"error"` (or its own string `type` property, if it has one).
 */
export class ToolServiceError extends Error {
  override readonly name = 'ToolServiceError'

  constructor(
    readonly type: string,
    message: string,
  ) {
    super(message)
  }
}

export abstract class DynamicToolService {
  /**
   * The tool's logic. `config` holds the tool descriptor's config values, `args` the model's
   * arguments, both parsed from the request's JSON strings. Return a string (the observation), an
   * object (sent JSON-encoded) or an async iterable of strings (each one a streamed response);
   * throw to answer with an error. `context.signal` aborts when the call is cancelled.
   */
  abstract invoke(
    user: string,
    config: Record<string, unknown>,
    args: Record<string, unknown>,
    context: InvokeContext,
  ): InvokeResult | Promise<InvokeResult>

  /** Serves over NATS until `close()`: see ServeNatsOptions. */
  serveNats(options: ServeNatsOptions): Promise<NatsServiceHandle> {
    return serveNats((user, config, args, context) => this.invoke(user, config, args, context), options)
  }

  /** Serves NDJSON over stdin/stdout until stdin ends or `close()`: see ServeStdioOptions. */
  serveStdio(options: ServeStdioOptions = {}): StdioServiceHandle {
    return serveStdio((user, config, args, context) => this.invoke(user, config, args, context), options)
  }
}
