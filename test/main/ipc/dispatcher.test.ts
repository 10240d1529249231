import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { type Atelier, createAtelier } from '../../../src-main/app/create-atelier'
import { useTempDirs } from '../../support/temp-dir'

describe('dispatch', () => {
  const tempDir = useTempDirs()
  let atelier: Atelier | undefined
  afterEach(() => atelier?.close())
  const open = () => {
    atelier = createAtelier({ dataDir: tempDir() })
    return atelier
  }

  it('rejects a malformed request with validation_failed before the handler runs', async () => {
    const { dispatch, chats } = open()
    const malformed = [
      { title: 42 },
      { title: 'ok', extra: true },
      { title: '' },
      { title: '   ' },
      null,
      'text',
      [],
    ]
    for (const request of malformed) {
      const result = await dispatch('chats.create', request)
      expect(result).toMatchObject({ ok: false, error: { code: 'validation_failed' } })
    }
    expect(chats.list()).toEqual([])
  })

  it('names the offending field in the validation error', async () => {
    const { dispatch } = open()
    const result = await dispatch('chats.rename', { id: 'x' })
    expect(result.ok).toBe(false)
    if (result.ok) return
    expect(result.error.message).toContain('/title')
    expect(result.error.data).toMatchObject({ method: 'chats.rename', errors: [{ path: '/title' }] })
  })

  it('rejects an unknown method with unknown_method', async () => {
    const { dispatch } = open()
    expect(await dispatch('chats.drop', {})).toMatchObject({ ok: false, error: { code: 'unknown_method' } })
    expect(await dispatch('__proto__', {})).toMatchObject({ ok: false, error: { code: 'unknown_method' } })
  })

  it('carries a service error as { code, message, data }', async () => {
    const { dispatch } = open()
    const result = await dispatch('chats.rename', { id: 'missing', title: 'New title' })
    expect(result).toEqual({
      ok: false,
      error: { code: 'not_found', message: 'No chat with id "missing".', data: { id: 'missing' } },
    })
  })

  it('keeps a tool error’s type as its code: an @ file outside the chat’s folder is path_denied, not internal', async () => {
    const { dispatch, chats } = open()
    const folder = tempDir()
    const outside = join(tempDir(), 'secret.txt')
    writeFileSync(outside, 'not yours\n')
    const chat = chats.configure({ id: chats.create({}).id, mode: 'agent', workingDir: folder })

    const result = await dispatch('turns.start', {
      chatId: chat.id,
      prompt: 'Read it',
      attachments: [{ kind: 'file', path: outside }],
    })
    expect(result).toMatchObject({
      ok: false,
      error: {
        code: 'path_denied',
        message: expect.stringContaining("is outside the chat's folder"),
        data: { rule: 'restriction' },
      },
    })
  })

  it('returns the handler value for a valid request', async () => {
    const { dispatch } = open()
    const created = await dispatch('chats.create', { title: 'Refactor parser' })
    expect(created).toMatchObject({
      ok: true,
      value: { title: 'Refactor parser', mode: 'chat', workingDir: null },
    })
    expect(await dispatch('chats.list', {})).toMatchObject({
      ok: true,
      value: [{ title: 'Refactor parser' }],
    })
  })
})
