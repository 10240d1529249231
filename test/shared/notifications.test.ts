import { describe, expect, it } from 'vitest'
import { notificationTitle } from '../../src-shared/notifications'

describe('notificationTitle', () => {
  it('keeps an ordinary title as it is', () => {
    expect(notificationTitle('Find the TODOs in src')).toBe('Find the TODOs in src')
  })

  it('masks what a pasted first line may carry: a value after = or :, a key-like word', () => {
    expect(notificationTitle('OPENAI_API_KEY=sk-proj-abc123 why does this fail')).toBe(
      'OPENAI_API_KEY=••• why does this fail',
    )
    expect(notificationTitle('token: ghp_16C7e42F292c6912E7710c838347Ae178B4a is refused')).toBe(
      'token: ••• is refused',
    )
    expect(notificationTitle('use ghp_16C7e42F292c6912E7710c838347Ae178B4a here')).toBe('use ••• here')
  })

  it('cuts a long title short, on one line', () => {
    const shown = notificationTitle(`Refactor\nthe ${'parser '.repeat(20)}`)
    expect(shown).not.toContain('\n')
    expect(shown).toHaveLength(60)
    expect(shown.endsWith('…')).toBe(true)
  })
})
