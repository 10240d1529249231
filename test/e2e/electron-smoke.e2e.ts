import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { _electron, type ElectronApplication } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { useTempDirs } from '../support/temp-dir'
import { ROOT } from './support'

/** The Electron binary if it was downloaded; looking must not trigger Electron's lazy download. */
function installedElectron(): string | undefined {
  const dir = join(ROOT, 'node_modules', 'electron')
  const pathFile = join(dir, 'path.txt')
  if (!existsSync(pathFile)) return undefined
  const binary = join(dir, 'dist', readFileSync(pathFile, 'utf8'))
  return existsSync(binary) ? binary : undefined
}

const electronBinary = installedElectron()
if (!electronBinary) console.warn('Electron smoke test skipped: Electron binary not installed')

describe.skipIf(!electronBinary)(
  electronBinary ? 'the desktop app' : 'the desktop app (skipped: Electron binary not installed)',
  () => {
    const tempDir = useTempDirs()
    let app: ElectronApplication

    beforeAll(async () => {
      // Builds better-sqlite3 for Electron's ABI once, as `npm start` does.
      execFileSync(process.execPath, [join(ROOT, 'scripts', 'prepare-electron.js')], { stdio: 'inherit' })
      app = await _electron.launch({
        executablePath: electronBinary,
        args: [ROOT],
        env: { ...process.env, ATELIER_DATA_DIR: tempDir() },
      })
    })
    afterAll(async () => {
      await app?.close()
    })

    it('locks down every web contents', async () => {
      // getLastWebPreferences is undocumented but kept by Electron for exactly this kind of check.
      const preferences = await app.evaluate(({ webContents }) =>
        webContents.getAllWebContents().map((contents) => {
          const read = (contents as unknown as { getLastWebPreferences?: () => Record<string, unknown> })
            .getLastWebPreferences
          const { contextIsolation, sandbox, nodeIntegration, webSecurity } = read?.call(contents) ?? {}
          return { contextIsolation, sandbox, nodeIntegration, webSecurity }
        }),
      )
      expect(preferences.length).toBeGreaterThan(0)
      for (const each of preferences) {
        expect(each).toEqual({
          contextIsolation: true,
          sandbox: true,
          nodeIntegration: false,
          webSecurity: true,
        })
      }
    })

    it('gives the renderer no Node, only window.atelier, and renders the chat list', async () => {
      const page = await app.firstWindow()
      await page.getByRole('navigation', { name: 'Chats' }).waitFor()
      expect(await page.evaluate(() => [typeof require, typeof process, typeof window.atelier])).toEqual([
        'undefined',
        'undefined',
        'object',
      ])
      await page.getByRole('button', { name: 'New chat', exact: true }).click()
      await page
        .getByRole('navigation', { name: 'Chats' })
        .getByRole('button', { name: 'Untitled chat', exact: true })
        .waitFor()
    })
  },
)
