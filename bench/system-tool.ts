/**
 * A reference program a benchmark measures against (ripgrep), found on PATH. `.ci/run` installs
 * it with the other Debian packages; elsewhere the benchmark says what to install.
 */
import { findOnPath } from '../src-main/tools/processes'

export function requireSystemTool(command: string, debianPackage: string): string {
  const found = findOnPath(command)
  if (found) return found
  throw new Error(
    `This benchmark measures against \`${command}\`, which is not on PATH. ` +
      `Install it (Debian/Ubuntu: sudo apt-get install -y ${debianPackage}) and run again.`,
  )
}
