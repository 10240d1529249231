import { execFileSync } from 'node:child_process'
import { openSync, closeSync, readdirSync, readlinkSync, constants, opendirSync } from 'node:fs'
import { listFolder } from '/work/main/src-main/tools/walk'
const dirs = execFileSync('find', ['/work/main/node_modules', '-type', 'd', '-not', '-path', '*/.*'], { encoding: 'utf8', maxBuffer: 1 << 30 }).split('\n').filter(Boolean)
const OPEN = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW
const variants: Record<string, (d: string) => unknown> = {
  current: (d) => listFolder(d),
  plainTyped: (d) => readdirSync(d, { withFileTypes: true }),
  plainNames: (d) => readdirSync(d),
  fdNoReadlink: (d) => { const fd = openSync(d, OPEN); try { return readdirSync(`/proc/self/fd/${fd}`, { withFileTypes: true }) } finally { closeSync(fd) } },
  fdReadlinkOnly: (d) => { const fd = openSync(d, OPEN); try { readlinkSync(`/proc/self/fd/${fd}`); return readdirSync(`/proc/self/fd/${fd}`, { withFileTypes: true }) } finally { closeSync(fd) } },
  opendir: (d) => { const dir = opendirSync(d); const out = []; for (let e = dir.readSync(); e; e = dir.readSync()) out.push(e); dir.closeSync(); return out },
}
for (let round = 0; round < 3; round++) {
  for (const [name, fn] of Object.entries(variants)) {
    const t = performance.now()
    let n = 0
    for (const d of dirs) { const r = fn(d) as unknown[] | undefined; n += r?.length ?? 0 }
    if (round === 2) console.log(name.padEnd(16), (performance.now() - t).toFixed(1), 'ms', dirs.length, 'dirs', n, 'entries')
  }
}
