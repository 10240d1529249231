import { describe, expect, it } from 'vitest'
import { requiredTexts } from '../../../../src-main/tools/search/grep-pattern'

describe('requiredTexts', () => {
  it.each([
    ['createElement', [['createElement']]],
    ['function\\s+\\w+Sync\\(', [['function', 'Sync(']]],
    ['TODO|FIXME', [['TODO'], ['FIXME']]],
    ['colou?r', [['colo', 'r']]],
    ['ab*c', [['a', 'c']]],
    ['x{0,2}y', [['y']]],
    ['x{2}y', [['x', 'y']]],
    ['a{b', [['a{b']]],
    ['[abc]def', [['def']]],
    ['a\\.b', [['a.b']]],
    ['^import .* from', [['import ', ' from']]],
  ])('reads %s as needing %j', (pattern, expected) => {
    expect(requiredTexts(pattern)?.map((texts) => texts.map(String))).toEqual(expected)
  })

  it.each(['x*', 'foo|\\d+', '(a|b)c', 'é', '\\nfoo', 'a|', '\\1'])('gives up on %s', (pattern) => {
    expect(requiredTexts(pattern)).toBeUndefined()
  })
})
