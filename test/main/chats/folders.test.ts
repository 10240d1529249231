import { mkdirSync, realpathSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { listFolders } from '../../../src-main/chats/folders'
import { FOLDER_FILE_LIMIT } from '../../../src-shared/contract'
import { useTempDirs } from '../../support/temp-dir'

describe('listFolders', () => {
  const tempDir = useTempDirs()

  it('lists sub-folders and files, dot-entries last, and the home it was given', async () => {
    const folder = realpathSync(tempDir())
    mkdirSync(join(folder, 'src'))
    mkdirSync(join(folder, '.git'))
    writeFileSync(join(folder, 'package.json'), '{}')
    writeFileSync(join(folder, '.env'), '')
    writeFileSync(join(folder, 'README.md'), '')
    const listing = await listFolders(folder, '/home/someone')
    expect(listing).toEqual({
      path: folder,
      parent: join(folder, '..'),
      home: '/home/someone',
      folders: [
        { name: 'src', path: join(folder, 'src') },
        { name: '.git', path: join(folder, '.git') },
      ],
      files: [{ name: 'package.json' }, { name: 'README.md' }, { name: '.env' }],
      fileCount: 3,
    })
  })

  it(`cuts the files at ${FOLDER_FILE_LIMIT}, saying how many there are, and never the folders`, async () => {
    const folder = realpathSync(tempDir())
    for (let index = 0; index < FOLDER_FILE_LIMIT + 7; index++) writeFileSync(join(folder, `f${index}`), '')
    for (let index = 0; index < 3; index++) mkdirSync(join(folder, `d${index}`))
    const listing = await listFolders(folder)
    expect(listing.files).toHaveLength(FOLDER_FILE_LIMIT)
    expect(listing.fileCount).toBe(FOLDER_FILE_LIMIT + 7)
    expect(listing.folders).toHaveLength(3)
  })
})
