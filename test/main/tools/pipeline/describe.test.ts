import { symlinkSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { LOCAL_USER } from '../../../../src-main/app/create-atelier'
import type { ToolCallDescription } from '../../../../src-shared/tools'
import { useToolHarness, writeTree } from '../../../support/tool-harness'

/** One sample call of every built-in, as a model might make it. */
const SAMPLES: [string, Record<string, unknown>][] = [
  ['read_file', { path: 'src/app.ts' }],
  ['read_file', { path: 'link-to-app.ts' }],
  ['write_file', { path: 'notes/new.md', content: '# New\n' }],
  ['edit_file', { path: 'src/app.ts', old_string: 'one', new_string: 'two' }],
  ['list_directory', { path: '.' }],
  ['glob', { pattern: '**/*.ts', cwd: 'src' }],
  ['grep', { pattern: 'TODO', path: 'src' }],
  ['get_current_datetime', { timezone: 'Europe/Berlin', locale: 'de-DE' }],
  ['generate_image', { prompt: 'A red kite over a harbour\nin the style of a woodcut' }],
  [
    'update_plan',
    {
      steps: [
        { step: 'Read the parser', status: 'completed' },
        { step: 'Fix the bug', status: 'in_progress' },
      ],
    },
  ],
  ['propose_plan', { plan: '## Plan\n\n1. Fix the bug' }],
  ['web_fetch', { url: 'https://Docs.Python.org/3/library/json.html', prompt: 'json.load arguments' }],
  ['task', { description: 'Find the config', prompt: 'Where is the config read?', agent: 'explore' }],
  ['bash', { command: 'npm test -- --watch=false', cwd: 'src' }],
  ['diagnostics', { path: 'src/app.ts' }],
  ['diagnostics', {}],
  ['definition', { path: 'src/app.ts', line: 1, column: 14 }],
  ['references', { path: 'src/app.ts', line: 1, column: 14 }],
  ['hover', { path: 'src/app.ts', line: 1, column: 14 }],
  ['symbols', { path: 'src/app.ts' }],
  ['symbols', { query: 'one' }],
  ['zsh', { command: 'ls' }],
  ['powershell', { command: 'Get-ChildItem' }],
  ['web_search', { query: 'node fetch timeout' }],
]

describe('describe stage', () => {
  const harness = useToolHarness()

  it('gives every built-in a kind, a one-line summary and the real paths a call will touch', async () => {
    const { atelier, project, run } = harness()
    writeTree(project, { 'src/app.ts': 'export const one = 1\n' })
    symlinkSync(join(project, 'src/app.ts'), join(project, 'link-to-app.ts'))
    const builtins = atelier.tools.registry.list().map((entry) => entry.tool.definition.name)
    for (const shell of ['bash', 'zsh', 'powershell'].filter((name) => builtins.includes(name))) {
      atelier.tools.settings.update(LOCAL_USER, shell, { enabled: true })
    }
    // Off by default until an engine is set up.
    atelier.tools.settings.update(LOCAL_USER, 'web_search', { enabled: true })
    const seen: (ToolCallDescription & { tool: string })[] = []
    // The decide stage sees the description; blocking there runs nothing.
    atelier.tools.executor.addBeforeToolHook(({ call, description }) => {
      seen.push({ tool: call.name, ...description })
      return { block: 'only describing' }
    })
    const samples = SAMPLES.filter(([name]) => builtins.includes(name))
    for (const [name, args] of samples) {
      expect(await run(name, args)).toMatchObject({ errorType: 'blocked' })
    }
    // Every built-in has a sample (a shell only where it is installed).
    expect(new Set(samples.map(([name]) => name))).toEqual(new Set(builtins))
    const shown = JSON.parse(JSON.stringify(seen).replaceAll(project, '<project>'))
    // The snapshot holds bash, present wherever the tests run; zsh and PowerShell vary by machine.
    expect(
      shown.filter(({ tool }: { tool: string }) => tool !== 'zsh' && tool !== 'powershell'),
    ).toMatchSnapshot()
  })
})
