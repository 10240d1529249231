/**
 * How to start one of the tools' worker threads (the search workers, the page converter): the
 * built `NAME.js` beside the bundle (or beside the chunk the caller was bundled into), else the
 * source through tsx (tests, the bench). Node 20 does not apply a worker's `--import tsx` to the
 * worker's own entry, so the source is loaded by a small script that registers tsx in the worker
 * first.
 */
import { existsSync } from 'node:fs'

/** The entry to give `new Worker` for the worker `name` beside `callerUrl` (the caller's `import.meta.url`). */
export function workerEntry(name: string, callerUrl: string): { entry: URL | string; eval: boolean } {
  for (const candidate of [`./${name}.js`, `../${name}.js`]) {
    const url = new URL(candidate, callerUrl)
    if (existsSync(url)) return { entry: url, eval: false }
  }
  const source = JSON.stringify(new URL(`./${name}.ts`, callerUrl).href)
  const script = `import('tsx/esm/api').then(({ register }) => { register(); return import(${source}) })`
  return { entry: script, eval: true }
}
