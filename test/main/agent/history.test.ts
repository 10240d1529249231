import { describe, expect, it } from 'vitest'
import { toModelMessages, UNFINISHED_CALL } from '../../../src-main/agent/history'
import type { ChatMessage, MessagePart } from '../../../src-shared/agent'

let seq = 0
const message = (role: ChatMessage['role'], parts: MessagePart[]): ChatMessage => ({
  id: `m${++seq}`,
  chatId: 'c',
  turnId: 't',
  role,
  parts,
  createdAt: seq,
})
const call = (id: string, name = 'read_file'): MessagePart => ({
  type: 'tool_call',
  id,
  name,
  arguments: '{}',
})
const result = (callId: string, content: string): MessagePart => ({
  type: 'tool_result',
  callId,
  name: 'read_file',
  content,
  isError: false,
})

describe('toModelMessages', () => {
  it('answers parallel calls in call order, whatever order their results were stored in', () => {
    const history = toModelMessages([
      message('user', [{ type: 'text', text: 'compare a and b' }]),
      message('assistant', [call('1'), call('2')]),
      message('tool', [result('2', 'b')]),
      message('tool', [result('1', 'a')]),
    ])
    expect(history[2]).toEqual({
      role: 'tool',
      results: [
        expect.objectContaining({ callId: '1', content: 'a' }),
        expect.objectContaining({ callId: '2', content: 'b' }),
      ],
    })
  })

  it('answers a call whose result never came (a stop, a crash) so the provider accepts the history', () => {
    const history = toModelMessages([
      message('user', [{ type: 'text', text: 'go' }]),
      message('assistant', [call('1')]),
      message('user', [{ type: 'text', text: 'go on' }]),
    ])
    expect(history.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'user'])
    expect(history[2]).toMatchObject({ results: [{ callId: '1', content: UNFINISHED_CALL, isError: true }] })
  })

  it('drops a response that holds only reasoning, with nothing said or done', () => {
    const history = toModelMessages([
      message('user', [{ type: 'text', text: 'hi' }]),
      message('assistant', [{ type: 'opaque', provider: 'anthropic', item: { type: 'thinking' } }]),
    ])
    expect(history).toEqual([{ role: 'user', text: 'hi' }])
  })
})
