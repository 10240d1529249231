/**
 * macOS: a command confined by Seatbelt (`sandbox-exec -p PROFILE`). Reads are open but for the
 * hidden paths; writes are refused but in the writable folders and the command's temp folder, and
 * never in the protected paths; the network is refused unless the policy allows it.
 */
import type { SandboxPolicy } from './policy'

/** The profile text for a policy (SBPL). Paths are quoted as SBPL strings. */
export function seatbeltProfile(policy: SandboxPolicy): string {
  const subpaths = (paths: readonly string[]) => paths.map((path) => `(subpath ${quoted(path)})`).join(' ')
  const lines = [
    '(version 1)',
    '(allow default)',
    `(deny file-write* (require-not (require-any ${subpaths([...policy.writable, policy.tempDir])} (literal "/dev/null") (literal "/dev/tty"))))`,
  ]
  if (policy.readOnly.length > 0) lines.push(`(deny file-write* ${subpaths(policy.readOnly)})`)
  if (policy.hidden.length > 0) {
    lines.push(`(deny file-read* file-write* ${subpaths(policy.hidden.map(({ path }) => path))})`)
  }
  if (!policy.network) {
    lines.push('(deny network*)', '(allow network* (remote unix-socket))')
  }
  return `${lines.join('\n')}\n`
}

function quoted(path: string): string {
  return `"${path.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`
}
