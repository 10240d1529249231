/**
 * `npm run example:tools`: the specification's repo_stats example, through the real `atelier`
 * command. A throwaway home folder holds `~/.atelier/tools/repo-stats.ts` (this folder's copy), and
 * a throwaway data folder keeps your own settings out of it; the tool then counts the TypeScript
 * files git tracks in this repository. The progress it streams goes to stderr, its result to stdout.
 */
import { spawnSync } from 'node:child_process'
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const repository = fileURLToPath(new URL('../..', import.meta.url))
const scratch = mkdtempSync(join(tmpdir(), 'atelier-example-tools-'))
const home = join(scratch, 'home')
mkdirSync(join(home, '.atelier', 'tools'), { recursive: true })
copyFileSync(
  fileURLToPath(new URL('./repo-stats.ts', import.meta.url)),
  join(home, '.atelier', 'tools', 'repo-stats.ts'),
)

function atelier(...args: string[]): number {
  const cli = join(repository, 'bin', 'atelier.js')
  const env = { ...process.env, HOME: home, ATELIER_DATA_DIR: join(scratch, 'data') }
  process.stdout.write(`\n$ atelier ${args.join(' ')}\n`)
  return spawnSync(process.execPath, [cli, ...args], { env, stdio: 'inherit' }).status ?? 1
}

try {
  const failed =
    atelier('custom-tools', 'list', '--cwd', repository) ||
    atelier('tool', 'repo_stats', JSON.stringify({ glob: 'src-main/**/*.ts' }), '--cwd', repository)
  process.exitCode = failed
} finally {
  rmSync(scratch, { recursive: true, force: true })
}
