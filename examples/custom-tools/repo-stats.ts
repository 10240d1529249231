/**
 * The custom tools specification's example, as a person would write it in `~/.atelier/tools/` or a
 * trusted project's `.atelier/tools/`: counts the files git tracks that match a glob.
 */
import type { CustomToolFactory } from 'atelier'

const factory: CustomToolFactory = (pi) => ({
  name: 'repo_stats',
  label: 'Repo Stats',
  description: 'Counts tracked TypeScript files',
  kind: 'read',
  parameters: pi.typebox.Type.Object({
    glob: pi.typebox.Type.Optional(pi.typebox.Type.String({ default: '**/*.ts' })),
  }),

  async execute(_toolCallId, params, onUpdate, _ctx, signal) {
    onUpdate?.({
      content: [{ type: 'text', text: 'Scanning files...' }],
      details: { phase: 'scan' },
    })

    const result = await pi.exec('git', ['ls-files', params.glob ?? '**/*.ts'], { signal, cwd: pi.cwd })
    if (result.killed) {
      throw new Error('Scan was cancelled')
    }
    if (result.code !== 0) {
      throw new Error(result.stderr || 'git ls-files failed')
    }

    const files = result.stdout.split('\n').filter(Boolean)
    return {
      content: [{ type: 'text', text: `Found ${files.length} files` }],
      details: { count: files.length, sample: files.slice(0, 10) },
    }
  },

  renderResult(result, { expanded }) {
    const details = result.details as { count?: number; sample?: string[] } | undefined
    if (details?.count === undefined) return undefined
    const head = `**${details.count}** tracked files`
    return expanded ? `${head}\n\n${(details.sample ?? []).map((file) => `- \`${file}\``).join('\n')}` : head
  },

  onSession(event) {
    if (event.reason === 'shutdown') {
      // cleanup resources if needed
    }
  },
})

export default factory
