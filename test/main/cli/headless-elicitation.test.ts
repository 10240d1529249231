import { afterEach, describe, expect, it, vi } from 'vitest'
import { declineHeadless } from '../../../src-main/cli/headless-elicitation'

describe('declining a question headless', () => {
  afterEach(() => vi.restoreAllMocks())

  it('prints the server’s message as one line, without control characters', async () => {
    const written: string[] = []
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
      written.push(String(chunk))
      return true
    })
    const answer = await declineHeadless({
      server: 'pro\u001b[2Jbe',
      message: 'Your name?\n\u001b[31mrm -rf\u001b[0m\r\u0007\u009b1;1H done\u007f',
      requestedSchema: { type: 'object', properties: {} },
    })
    expect(answer).toEqual({ action: 'decline' })
    expect(written).toEqual([
      "Declined the MCP server “pro [2Jbe”'s question (no one to answer in a headless run): Your name? [31mrm -rf [0m 1;1H done \n",
    ])
  })
})
