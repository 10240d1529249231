/**
 * What a confined command may touch: the one description every platform's sandbox turns into its
 * own form (bubblewrap's mounts, a Seatbelt profile). Every path is real (symlinks resolved) and
 * exists: a sandbox can bind or deny only what is there.
 */
export interface SandboxPolicy {
  /** Folders it may write: the bound folder and the paths the person added. */
  writable: string[]
  /** Paths inside those it may not write: the protected paths that exist (`.git`, `.npmrc`, …). */
  readOnly: string[]
  /** Paths it may not even read — the person's secrets, Atelier's own data — and whether each is a folder. */
  hidden: { path: string; folder: boolean }[]
  /** Whether it may reach the network (its own loopback only, otherwise). */
  network: boolean
  /** A folder of its own for temporary files, where the platform cannot give it a private `/tmp`. */
  tempDir: string
}

/** A command as it would run unconfined. */
export interface SandboxCommand {
  file: string
  args: string[]
  cwd: string
  env: NodeJS.ProcessEnv
}
