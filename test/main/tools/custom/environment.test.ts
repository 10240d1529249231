import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { useCustomToolApps, writeFile } from '../../../support/custom-tools'

/** A tool that answers its host's environment and what `env` run through `api.exec` printed. */
const SHOW_ENV = `
export default (api) => ({
  name: 'show_env',
  label: 'Show env',
  description: 'Shows the environment it runs with',
  parameters: api.typebox.Type.Object({}),
  async execute() {
    const exec = await api.exec('env', [])
    return { content: [{ type: 'text', text: JSON.stringify({ host: process.env, exec: exec.stdout }) }] }
  },
})
`

const APP_KEY = 'sk-AppStartedWithThisKey-0123456789'
const NAMED = 'the-value-the-person-passes'

describe("a tool folder's environment", { timeout: 60_000 }, () => {
  const freshApp = useCustomToolApps()
  const before = { ...process.env }
  beforeEach(() => {
    // As the app was started: with a provider key, and a variable a tool of the person needs.
    process.env.OPENAI_API_KEY = APP_KEY
    process.env.ATELIER_TOOL_NEEDS = NAMED
  })
  afterEach(() => {
    for (const name of ['OPENAI_API_KEY', 'ATELIER_TOOL_NEEDS']) {
      if (before[name] === undefined) delete process.env[name]
      else process.env[name] = before[name]
    }
  })

  it("is the shell's allowlist and the variables named for that folder, for its host and api.exec alike", async () => {
    const app = freshApp()
    writeFile(join(app.userTools, 'show-env.ts'), SHOW_ENV)
    const environment = async () => {
      const result = await app.call('show_env', {})
      expect(result).toMatchObject({ isError: false })
      return JSON.parse(result.content) as { host: Record<string, string>; exec: string }
    }

    const first = await environment()
    expect(first.host.OPENAI_API_KEY).toBeUndefined()
    expect(first.host.ATELIER_TOOL_NEEDS).toBeUndefined()
    expect(first.exec).not.toContain(APP_KEY)
    expect(first.exec).not.toContain('ATELIER_TOOL_NEEDS')
    // What programs need still comes through.
    expect(first.host.PATH).toBe(process.env.PATH)
    expect(first.exec).toContain(`PATH=${process.env.PATH}\n`)

    expect(app.atelier.customTools.setEnvironment(app.userTools, ['ATELIER_TOOL_*'])).toEqual({
      folder: app.userTools,
      names: ['ATELIER_TOOL_*'],
    })
    const folder = (await app.list()).folders.find((each) => each.path === app.userTools)
    expect(folder?.environment).toEqual(['ATELIER_TOOL_*'])
    // The host starts again with it at the next call.
    const second = await environment()
    expect(second.host.ATELIER_TOOL_NEEDS).toBe(NAMED)
    expect(second.exec).toContain(`ATELIER_TOOL_NEEDS=${NAMED}\n`)
    expect(second.host.OPENAI_API_KEY).toBeUndefined()
    expect(second.exec).not.toContain(APP_KEY)
  })
})
