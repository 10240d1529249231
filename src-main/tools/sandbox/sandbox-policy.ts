/**
 * The policy a command of the agent runs under: it writes the bound folder (its protected paths
 * excepted) and the paths the person added; it reads everything but the person's secrets and
 * Atelier's own data; it reaches the network only when allowed.
 */
import { realpathSync, statSync } from 'node:fs'
import { isAbsolute, join } from 'node:path'
import type { SandboxPolicy } from './policy'
import { protectedWithin } from './protected-within'

/**
 * Under the home folder: what holds keys, tokens and sessions — never read by a sandboxed command.
 * Only what exists is hidden (an empty folder or file in its place).
 */
export const SECRET_PATHS = [
  '.ssh',
  '.aws',
  '.azure',
  '.gnupg',
  '.config/gcloud',
  '.config/gh',
  '.kube',
  '.docker/config.json',
  '.netrc',
  '.git-credentials',
  '.npmrc',
  '.pypirc',
  '.password-store',
  '.local/share/keyrings',
  '.terraform.d/credentials.tfrc.json',
  // Browser profiles: cookies and saved passwords.
  '.mozilla',
  '.config/google-chrome',
  '.config/chromium',
  '.config/BraveSoftware',
  '.config/microsoft-edge',
  'Library/Keychains',
  'Library/Application Support/Google/Chrome',
  'Library/Application Support/Firefox',
  'Library/Cookies',
]

export interface PolicySetup {
  /** The bound folder (a server's working folder); none: it writes only its temp folder and `writablePaths`. */
  folder: string | null
  /** The approvals' protected paths: read-only inside the folder. */
  protectedPaths: readonly string[]
  /** More folders it may write, as the person set them. */
  writablePaths: readonly string[]
  home: string
  /** Atelier's data folder: the database and the secret store. */
  dataDir: string
  network: boolean
  tempDir: string
}

export function sandboxPolicy(setup: PolicySetup): SandboxPolicy {
  const folder = setup.folder === null ? null : (realOrUndefined(setup.folder) ?? setup.folder)
  const hidden = [...SECRET_PATHS.map((path) => join(setup.home, path)), setup.dataDir].flatMap((path) => {
    const real = realOrUndefined(path)
    if (!real) return []
    // Never over the folder being worked in, which a person may keep anywhere.
    if (folder !== null && (folder === real || folder.startsWith(`${real}/`))) return []
    return [{ path: real, folder: statSync(real).isDirectory() }]
  })
  // `~/…` is the home folder's; a relative path names no folder of the person's, so none is added.
  const added = setup.writablePaths.flatMap((path) => {
    const full = path === '~' || path.startsWith('~/') ? join(setup.home, path.slice(1)) : path
    return isAbsolute(full) ? (realOrUndefined(full) ?? []) : []
  })
  return {
    writable: folder === null ? added : [folder, ...added],
    readOnly: folder === null ? [] : protectedWithin(folder, setup.protectedPaths),
    hidden,
    network: setup.network,
    tempDir: setup.tempDir,
  }
}

function realOrUndefined(path: string): string | undefined {
  try {
    return realpathSync(path)
  } catch {
    return undefined
  }
}
