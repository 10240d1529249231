import { TypeCompiler, type ValueError } from '@sinclair/typebox/compiler'
import type { InvokeResult } from '../../src-shared/api'
import {
  isMethodName,
  type MethodName,
  type MethodRequest,
  type MethodResponse,
  methodNames,
  methods,
} from '../../src-shared/contract'
import { toErrorPayload } from '../../src-shared/errors'

/** One function per contract method; each receives a request that has already passed its schema. */
export type ContractHandlers = {
  [M in MethodName]: (request: MethodRequest<M>) => MethodResponse<M> | Promise<MethodResponse<M>>
}

export type Dispatch = (method: string, request: unknown) => Promise<InvokeResult>

const MAX_REPORTED_ERRORS = 10

/**
 * Validates every request against the contract before its handler runs, and turns every failure
 * into a typed payload. Electron IPC and the web host both call through this one function.
 */
export function createDispatcher(handlers: ContractHandlers): Dispatch {
  const validators = new Map(methodNames.map((name) => [name, TypeCompiler.Compile(methods[name].request)]))

  return async (method, request) => {
    if (!isMethodName(method)) {
      return { ok: false, error: { code: 'unknown_method', message: `Unknown method "${method}".` } }
    }
    const validator = validators.get(method)
    if (validator && !validator.Check(request)) {
      const errors = firstErrorPerPath(validator.Errors(request))
      const first = errors[0]
      return {
        ok: false,
        error: {
          code: 'validation_failed',
          message: `Invalid request for ${method}: ${first ? `${first.path} ${first.message}` : 'malformed'}.`,
          data: { method, errors },
        },
      }
    }
    try {
      const handler = handlers[method] as (request: unknown) => unknown
      return { ok: true, value: await handler(request) }
    } catch (error) {
      return { ok: false, error: toErrorPayload(error) }
    }
  }
}

/** TypeBox reports a missing property twice ("required", then "string"); the first one says it best. */
function firstErrorPerPath(errors: Iterable<ValueError>): { path: string; message: string }[] {
  const byPath = new Map<string, string>()
  for (const error of errors) {
    const path = error.path || '/'
    if (!byPath.has(path)) byPath.set(path, error.message)
    if (byPath.size === MAX_REPORTED_ERRORS) break
  }
  return [...byPath].map(([path, message]) => ({ path, message }))
}
