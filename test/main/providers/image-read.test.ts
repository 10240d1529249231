import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { createAtelier, DATABASE_FILE, IMAGES_FOLDER } from '../../../src-main/app/create-atelier'
import { FAKE_PNG } from '../../support/fake-provider'
import { useTempDirs } from '../../support/temp-dir'

describe('images.read', () => {
  const tempDir = useTempDirs()

  it('returns a generated image for the chat to show, and nothing outside the images folder', async () => {
    const dataDir = tempDir()
    const atelier = createAtelier({ dataDir })
    try {
      const folder = join(dataDir, IMAGES_FOLDER, 'chat-1')
      mkdirSync(folder, { recursive: true })
      const image = join(folder, 'cat.png')
      writeFileSync(image, FAKE_PNG)
      expect(await atelier.dispatch('images.read', { path: image })).toEqual({
        ok: true,
        value: { mimeType: 'image/png', base64: FAKE_PNG.toString('base64') },
      })

      const outside = join(tempDir(), 'elsewhere.png')
      writeFileSync(outside, FAKE_PNG)
      const sneaky = join(folder, 'link.png')
      symlinkSync(outside, sneaky)
      const escapes = [outside, sneaky, join(folder, '..', '..', DATABASE_FILE), join(folder, 'missing.png')]
      for (const path of escapes) {
        expect(await atelier.dispatch('images.read', { path })).toMatchObject({
          ok: false,
          error: { code: 'not_found' },
        })
      }
    } finally {
      atelier.close()
    }
  })
})
