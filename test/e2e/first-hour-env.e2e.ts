/**
 * Issue 19 ("The first hour"), the helper "env"'s items in Chromium through the web host, found by
 * role and accessible name. Item 1 (npm test provisions its programs) is tested where it runs, as a
 * child process: test/scripts/test-prerequisites.test.ts.
 */
import { describe, expect, it } from 'vitest'
import { screenshot, settingsSection, type Theme, useChatApp } from './support'

describe('the first hour, in Chromium', () => {
  const { open } = useChatApp()

  for (const theme of ['light', 'dark'] as Theme[]) {
    it(`item 8: the bash card has a title and its tool name, and says what is true off and on (${theme})`, async () => {
      const { page } = await open({ colorScheme: theme })
      // Screenshots show the switch where it ends, not midway through its slide.
      await page.emulateMedia({ reducedMotion: 'reduce' })
      await settingsSection(page, 'Tools')

      // Like "Search file contents (grep)": a title a person reads, and the tool's name the model uses.
      const card = page.getByRole('region', { name: 'Run commands (bash)', exact: true })
      await card.getByRole('heading', { name: 'Run commands (bash)', exact: true }).waitFor()
      expect(await card.locator('code.tool-name').textContent()).toBe('bash')
      const bash = card.getByRole('switch', { name: 'Run commands (bash)', exact: true })

      expect(await bash.getAttribute('aria-checked')).toBe('false')
      await card.getByText('Off until you turn it on.').waitFor()
      await card.scrollIntoViewIfNeeded()
      await screenshot(page, `first-hour-8-off-${theme}`)

      await bash.click()
      await page
        .getByRole('dialog', { name: 'Turn on bash?' })
        .getByRole('button', { name: 'Turn on bash' })
        .click()
      await expect.poll(() => bash.getAttribute('aria-checked')).toBe('true')
      await expect.poll(() => bash.getAttribute('aria-busy')).toBe(null)
      // Once on, the card no longer claims it is off; it says what being on means.
      await card.getByText('On: the model can run commands', { exact: false }).waitFor()
      expect(await card.getByText('Off until you turn it on.').count()).toBe(0)
      await screenshot(page, `first-hour-8-${theme}`)

      await bash.click()
      await expect.poll(() => bash.getAttribute('aria-checked')).toBe('false')
      await card.getByText('Off until you turn it on.').waitFor()
      expect(await card.getByText('On: the model can run commands', { exact: false }).count()).toBe(0)
    })
  }
})
