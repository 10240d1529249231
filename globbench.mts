import { execFileSync } from 'node:child_process'
import '/work/main/src-main/tools/builtin/glob'
import { createAtelier, LOCAL_USER } from '/work/main/src-main/app/create-atelier'
import { mkdtempSync } from 'node:fs'
const atelier = createAtelier({ dataDir: mkdtempSync('/tmp/gb-') })
const cache = Number(process.env.CACHE ?? 0)
atelier.tools.settings.update(LOCAL_USER, 'glob', { parameters: { includeDotfiles: false, respectGitignore: false, maxResults: 5000, cacheMiB: cache } })
const scope = { user: LOCAL_USER, workingDirectory: '/work/main', mode: 'agent' as const, restrict: true }
const { searchPool } = await import('/work/main/src-main/tools/search/worker-pool')
for (let r = 0; r < 16; r++) {
  let t = performance.now()
  const res = await atelier.tools.executor.execute({ name: 'glob', arguments: { pattern: '**/*.d.ts', cwd: 'node_modules' } }, scope)
  const ours = performance.now() - t
  if (cache) await searchPool().settled()
  t = performance.now()
  execFileSync('rg', ['--no-config', '--no-ignore', '--files', '--glob', '*.d.ts', 'node_modules'], { cwd: '/work/main', maxBuffer: 1 << 30 })
  const rg = performance.now() - t
  console.log(r, ours.toFixed(1), rg.toFixed(1), (ours / rg).toFixed(2), res.isError ? res.content.slice(0, 100) : '')
}
console.log(JSON.stringify([...(await searchPool().cacheStats())]))
process.exit(0)
