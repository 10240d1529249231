/**
 * Ending a stdio server with everything it started. Servers are often launched through a wrapper
 * (`npx`, `uvx`, a shell script) whose own children outlive it when only the wrapper is signalled,
 * so the tree is read while it is still whole, the root is closed gracefully, and whatever of the
 * tree is left is terminated, then killed.
 */
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'

const run = promisify(execFile)

/** How long the survivors get between SIGTERM and SIGKILL. */
const GRACE_MS = 2000

export async function closeProcessTree(root: number | null, closeRoot: () => Promise<void>): Promise<void> {
  if (root === null) return closeRoot()
  if (process.platform === 'win32') {
    // Windows has no graceful signal to send; taskkill walks the tree while the root still holds it.
    await run('taskkill', ['/pid', String(root), '/T', '/F']).catch(() => {})
    return closeRoot()
  }
  const descendants = await descendantsOf(root)
  await closeRoot()
  await terminate(descendants)
}

/** Every process below `root`, from the parent links `ps` reports. */
async function descendantsOf(root: number): Promise<number[]> {
  let listing: string
  try {
    listing = (await run('ps', ['-A', '-o', 'pid=', '-o', 'ppid='])).stdout
  } catch {
    return []
  }
  const children = new Map<number, number[]>()
  for (const line of listing.split('\n')) {
    const [pid, ppid] = line.trim().split(/\s+/).map(Number)
    if (pid === undefined || ppid === undefined || Number.isNaN(pid) || Number.isNaN(ppid)) continue
    children.set(ppid, [...(children.get(ppid) ?? []), pid])
  }
  const found: number[] = []
  const queue = [root]
  for (let parent = queue.shift(); parent !== undefined; parent = queue.shift()) {
    for (const child of children.get(parent) ?? []) {
      found.push(child)
      queue.push(child)
    }
  }
  return found
}

async function terminate(pids: number[]): Promise<void> {
  let alive = pids.filter((pid) => signal(pid, 'SIGTERM'))
  for (let waited = 0; alive.length > 0 && waited < GRACE_MS; waited += 50) {
    await new Promise((resolve) => setTimeout(resolve, 50))
    alive = alive.filter((pid) => signal(pid, 0))
  }
  for (const pid of alive) signal(pid, 'SIGKILL')
}

/** Sends a signal; false when the process is gone. */
function signal(pid: number, name: NodeJS.Signals | 0): boolean {
  try {
    process.kill(pid, name)
    return true
  } catch {
    return false
  }
}
