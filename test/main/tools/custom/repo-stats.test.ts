import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { useAgentFixture } from '../../../support/agent-harness'
import { copyTool, fileOf, gitRepo, REPO_STATS, useCustomToolApps } from '../../../support/custom-tools'
import { type EndedCall, progressReports, toolResult } from '../../../support/turn-events'

const TRACKED = {
  'src/a.ts': 'export const a = 1\n',
  'src/b.ts': 'export const b = 2\n',
  'src/lib/c.ts': 'export const c = 3\n',
  'src/d.js': 'export const d = 4\n',
  'README.md': '# A repo\n',
}

describe("the seed's repo_stats example", { timeout: 60_000 }, () => {
  const fixture = useAgentFixture()
  const freshApp = useCustomToolApps()

  it('is listed, offered to the model, streams "Scanning files..." to the tool card and returns the real count', async () => {
    const { atelier, fake, project, home, run } = await fixture()
    gitRepo(project, TRACKED)
    const module = copyTool(REPO_STATS, join(home, '.atelier', 'tools'))

    const info = await atelier.customTools.load(project)
    expect(fileOf(info, module)).toMatchObject({
      status: 'loaded',
      tools: [{ name: 'repo_stats', label: 'Repo Stats', description: 'Counts tracked TypeScript files' }],
    })
    expect(info.folders[0]).toMatchObject({ origin: 'user', trusted: true, running: true })

    fake.enqueue({ toolCalls: [{ id: 'stats', name: 'repo_stats', arguments: '{}' }] }, { text: 'Three.' })
    const { turn, events } = await run('How many TypeScript files?')

    expect(turn.status).toBe('completed')
    expect(progressReports(events)).toEqual([
      { id: 'stats', progress: { kind: 'partial', text: 'Scanning files...' } },
    ])
    const result = toolResult(events, 'stats') as EndedCall
    // git ls-files '**/*.ts': the three TypeScript files, not the .js nor the README.
    expect(result).toMatchObject({ id: 'stats', isError: false, content: 'Found 3 files' })
    expect(result.data).toEqual({ count: 3, sample: ['src/a.ts', 'src/b.ts', 'src/lib/c.ts'] })
    // The example's renderResult makes the card.
    expect(result.display).toMatchObject({ kind: 'rendered', collapsed: '**3** tracked files' })
    const reported = events.findIndex((event) => event.type === 'tool_call' && event.call.progress?.partial)
    const ended = events.findIndex((event) => event.type === 'tool_call' && event.call.result)
    expect(reported).toBeGreaterThan(-1)
    expect(reported).toBeLessThan(ended)

    // The model was offered the tool with its TypeBox schema, and read the count.
    const [first, second] = fake.requestsOf('openai-chat').map((request) => request.body)
    const offered = first.tools.find(
      (tool: { function: { name: string } }) => tool.function.name === 'repo_stats',
    )
    expect(offered.function).toMatchObject({
      description: 'Counts tracked TypeScript files',
      parameters: { type: 'object', properties: { glob: { type: 'string', default: '**/*.ts' } } },
    })
    expect(JSON.stringify(second.messages)).toContain('Found 3 files')
  })

  it('runs through the executor with its glob, in the call folder, and reports git failing as an error result', async () => {
    const app = freshApp()
    gitRepo(app.project, TRACKED)
    copyTool(REPO_STATS, app.userTools)

    const updates: unknown[] = []
    const result = await app.call('repo_stats', { glob: 'src/lib/*' }, { updates: updates as never })
    expect(updates).toEqual([{ kind: 'partial', text: 'Scanning files...' }])
    expect(result).toMatchObject({ isError: false, content: 'Found 1 files', data: { count: 1 } })

    // A folder git does not know: the tool throws git's complaint, which the model reads.
    const failed = await app.call('repo_stats', {}, { workingDirectory: app.home })
    expect(failed).toMatchObject({ isError: true, errorType: 'execution_failed' })
    expect(failed.content).toMatch(/^repo_stats failed: .*not a git repository/i)
  })
})
