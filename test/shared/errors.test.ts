import { describe, expect, it } from 'vitest'
import { ProviderError } from '../../src-main/providers/provider-error'
import { FatalToolError, ToolArgumentError, ToolError, ToolPathError } from '../../src-main/tools/errors'
import { AtelierError, ERROR_CODES, isErrorCode, toErrorPayload } from '../../src-shared/errors'

describe('ERROR_CODES', () => {
  it('lists every code once, whichever group it belongs to', () => {
    const repeated = ERROR_CODES.filter((code, index) => ERROR_CODES.indexOf(code) !== index)
    expect(repeated).toEqual([])
  })
})

describe('toErrorPayload', () => {
  it('keeps the code of every error class, so a caller across IPC can act on it', () => {
    const thrown = [
      new AtelierError('not_found', 'No chat with id "x".', { id: 'x' }),
      new ToolError('not_read', 'Read it first.'),
      new ToolPathError('path_denied', 'Outside the folder.', 'restriction'),
      new ToolArgumentError('startLine must be at least 1', 'startLine'),
      new FatalToolError('The database is gone.'),
      new ProviderError('provider_auth', 'OpenAI refused the API key (401).', false, 401),
    ]
    expect(thrown.map((error) => toErrorPayload(error).code)).toEqual([
      'not_found',
      'not_read',
      'path_denied',
      'validation_failed',
      'fatal',
      'provider_auth',
    ])
    expect(toErrorPayload(thrown[2])).toEqual({
      code: 'path_denied',
      message: 'Outside the folder.',
      data: { rule: 'restriction' },
    })
  })

  it('reads anything else as internal, its words kept', () => {
    const enoent = Object.assign(new Error('ENOENT: no such file'), { code: 'ENOENT' })
    expect(toErrorPayload(enoent)).toEqual({ code: 'internal', message: 'ENOENT: no such file' })
    expect(toErrorPayload('a string')).toEqual({ code: 'internal', message: 'a string' })
    expect(isErrorCode('ENOENT')).toBe(false)
  })
})
