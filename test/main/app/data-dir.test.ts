import { homedir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { resolveDataDir } from '../../../src-main/app/data-dir'

describe('resolveDataDir', () => {
  it('prefers the flag, then ATELIER_DATA_DIR', () => {
    expect(resolveDataDir('/flag', { ATELIER_DATA_DIR: '/env' }, 'linux')).toBe('/flag')
    expect(resolveDataDir(undefined, { ATELIER_DATA_DIR: '/env' }, 'linux')).toBe('/env')
  })

  it('uses the folder Electron uses for userData on each OS', () => {
    expect(resolveDataDir(undefined, {}, 'linux')).toBe(join(homedir(), '.config', 'Atelier'))
    expect(resolveDataDir(undefined, { XDG_CONFIG_HOME: '/xdg' }, 'linux')).toBe(join('/xdg', 'Atelier'))
    expect(resolveDataDir(undefined, {}, 'darwin')).toBe(
      join(homedir(), 'Library', 'Application Support', 'Atelier'),
    )
    expect(resolveDataDir(undefined, { APPDATA: 'C:\\Users\\me\\AppData\\Roaming' }, 'win32')).toBe(
      join('C:\\Users\\me\\AppData\\Roaming', 'Atelier'),
    )
  })
})
