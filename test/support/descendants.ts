import { execFileSync } from 'node:child_process'

/**
 * The command lines of this test process's living descendants that `matches` picks: only what the
 * test spawned counts, whatever else runs on the machine.
 */
export function descendantProcesses(matches: (args: string) => boolean): string[] {
  const rows = execFileSync('ps', ['-eo', 'pid=,ppid=,stat=,args='], { encoding: 'utf8' })
    .split('\n')
    .flatMap((line) => {
      const match = /^\s*(\d+)\s+(\d+)\s+(\S+)\s+(.*)$/.exec(line)
      return match
        ? [{ pid: Number(match[1]), ppid: Number(match[2]), stat: match[3] ?? '', args: match[4] ?? '' }]
        : []
    })
  const ours = new Set([process.pid])
  for (let grew = true; grew; ) {
    grew = false
    for (const row of rows) {
      if (!ours.has(row.pid) && ours.has(row.ppid)) {
        ours.add(row.pid)
        grew = true
      }
    }
  }
  // A zombie has ended; it only waits for its parent to read its status.
  return rows
    .filter((row) => ours.has(row.pid) && !row.stat.startsWith('Z') && matches(row.args))
    .map((row) => row.args)
}
