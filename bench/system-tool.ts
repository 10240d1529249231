/**
 * A reference program a benchmark measures against (ripgrep), found on PATH — or, on a fresh
 * Debian machine where the benchmark runs as root, installed from Debian's package — so
 * `npm run bench` needs no set-up of its own. Anything else fails saying what was tried.
 */
import { execFileSync } from 'node:child_process'
import { findOnPath } from '../src-main/tools/processes'

export function requireSystemTool(command: string, debianPackage: string): string {
  const found = findOnPath(command)
  if (found) return found
  const aptGet = findOnPath('apt-get')
  const root = process.getuid?.() === 0
  if (aptGet && root) {
    process.stderr.write(`${command} is not installed: installing Debian's ${debianPackage}…\n`)
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }
    execFileSync(aptGet, ['update', '-qq'], { stdio: ['ignore', 'ignore', 'inherit'], env })
    execFileSync(aptGet, ['install', '-y', '-qq', debianPackage], {
      stdio: ['ignore', 'ignore', 'inherit'],
      env,
    })
    const installed = findOnPath(command)
    if (installed) return installed
  }
  const tried = !aptGet
    ? 'PATH (no apt-get here)'
    : root
      ? `PATH, then apt-get install ${debianPackage}`
      : 'PATH (not root, so no apt-get)'
  throw new Error(
    `This benchmark measures against \`${command}\`, which was not found; tried ${tried}. ` +
      `Install it (Debian/Ubuntu: sudo apt-get install -y ${debianPackage}) and run again.`,
  )
}
