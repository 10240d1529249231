import { describe, expect, it } from 'vitest'
import { parseSlashText, slashActionOf } from '../../src-shared/commands'

describe('slash text', () => {
  describe('parseSlashText', () => {
    it('reads a command’s name and what follows it, lines included', () => {
      expect(parseSlashText('/fix 42 now')).toEqual({ name: 'fix', arguments: '42 now' })
      expect(parseSlashText('  /review\nthe parser  ')).toEqual({ name: 'review', arguments: 'the parser' })
      expect(parseSlashText('/init')).toEqual({ name: 'init', arguments: '' })
    })

    it('returns null for text that is not a command: a path, a bare slash, a slash later on', () => {
      expect(parseSlashText('/usr/bin is slow')).toBeNull()
      expect(parseSlashText('/')).toBeNull()
      expect(parseSlashText('please /fix 42')).toBeNull()
    })
  })

  describe('slashActionOf', () => {
    it('names the built-in the app does itself, only when nothing follows it', () => {
      expect(slashActionOf('/compact')).toBe('compact')
      expect(slashActionOf('/clear ')).toBe('clear')
      expect(slashActionOf('/undo the last one')).toBeNull()
      expect(slashActionOf('/init')).toBeNull()
    })
  })
})
