import { execFileSync } from 'node:child_process'

interface ProcessRow {
  pid: number
  ppid: number
  stat: string
  args: string
}

/** Every process on the machine, as `ps` lists it. */
function processRows(): ProcessRow[] {
  return execFileSync('ps', ['-eo', 'pid=,ppid=,stat=,args='], { encoding: 'utf8' })
    .split('\n')
    .flatMap((line) => {
      const match = /^\s*(\d+)\s+(\d+)\s+(\S+)\s+(.*)$/.exec(line)
      return match
        ? [{ pid: Number(match[1]), ppid: Number(match[2]), stat: match[3] ?? '', args: match[4] ?? '' }]
        : []
    })
}

/** A zombie has ended; it only waits for its parent to read its status. */
const living = (row: ProcessRow) => !row.stat.startsWith('Z')

/**
 * The command lines of this test process's living descendants that `matches` picks: only what the
 * test spawned counts, whatever else runs on the machine.
 */
export function descendantProcesses(matches: (args: string) => boolean): string[] {
  const rows = processRows()
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
  return rows.filter((row) => ours.has(row.pid) && living(row) && matches(row.args)).map((row) => row.args)
}

/**
 * The command lines of every living process on the machine that `matches` picks, whoever is its
 * parent now: what a test started and lost track of counts too (`matches` should name something
 * only the test's processes carry).
 */
export function livingProcesses(matches: (args: string) => boolean): string[] {
  return processRows()
    .filter((row) => living(row) && matches(row.args))
    .map((row) => row.args)
}
