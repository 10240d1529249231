import type { Server } from 'node:http'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { createAtelier } from '../../src-main/app/create-atelier'
import { startWebHost } from '../../src-main/web/web-host'
import { closedPort, ollamaRoutes, portOf, startFakeServer, stopServer } from '../support/fake-local-servers'
import { useTempDirs } from '../support/temp-dir'
import { ROOT, screenshot, settingsSection, useBrowser } from './support'

/**
 * Detect local servers in Chromium, against the web host and the real services: a fake Ollama on a
 * loopback port the app is told to look at, the other servers' ports closed.
 */
describe('Detect local servers in the provider form', () => {
  const { browser, cleanups } = useBrowser()
  const tempDir = useTempDirs()

  it('lists a server that answers with its models, and adds it as a provider in one click', async () => {
    const ollama: Server = await startFakeServer(
      ollamaRoutes(['llama3.2:3b', 'qwen3:8b'], { 'qwen3:8b': 40960 }),
    )
    cleanups.push(() => stopServer(ollama))
    const atelier = createAtelier({
      dataDir: tempDir(),
      home: tempDir(),
      hasUI: true,
      localServerPorts: {
        ollama: portOf(ollama),
        'lm-studio': await closedPort(),
        'llama-cpp': await closedPort(),
        vllm: await closedPort(),
      },
    })
    const host = await startWebHost({ atelier, rendererDir: join(ROOT, 'out', 'renderer') })
    cleanups.push(
      () => atelier.close(),
      () => host.close(),
    )
    const context = await browser().newContext({ viewport: { width: 1280, height: 860 } })
    cleanups.push(() => context.close())
    const page = await context.newPage()
    await page.goto(host.url)

    const panel = await settingsSection(page, 'Providers')
    await panel.getByRole('button', { name: 'Add provider' }).first().click()
    await panel.getByRole('button', { name: 'Detect local servers' }).click()
    const found = panel.getByRole('list', { name: 'Local servers found' })
    await found.waitFor()
    expect(await found.getByRole('listitem').count()).toBe(1)
    expect(await found.textContent()).toContain(`http://127.0.0.1:${portOf(ollama)}/v1`)
    const model = found.getByRole('combobox', { name: 'Default model' })
    expect(await model.locator('option').allTextContents()).toEqual(['llama3.2:3b', 'qwen3:8b (41k context)'])
    await model.selectOption('qwen3:8b')
    await screenshot(page, 'settings-providers-detected')
    await found.getByRole('button', { name: 'Add Ollama' }).click()

    await expect
      .poll(() =>
        atelier.providers
          .list()
          .map(({ kind, name, baseUrl, defaultModel }) => ({ kind, name, baseUrl, defaultModel })),
      )
      .toEqual([
        {
          kind: 'openai-chat',
          name: 'Ollama',
          baseUrl: `http://127.0.0.1:${portOf(ollama)}/v1`,
          defaultModel: 'qwen3:8b',
        },
      ])
    await panel.getByRole('heading', { name: 'Ollama', level: 3 }).waitFor()
  })
})
