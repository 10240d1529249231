/**
 * The project folders the person trusts to run their own tool modules, each by its real path (the
 * same folder reached through a symlink is the same trust) and with its modules as they were when
 * trusted (`fingerprintOf`): a module added or edited since — a `git pull` — waits to be confirmed.
 * Kept in the app settings as `customTools.trustedFolders`: `[{ folder, modules: { path: digest } }]`.
 */
import type { AppSettingsRepository } from '../../db/app-settings-repository'
import { realOf } from './discovery'
import { fingerprintOf } from './module-fingerprints'

const TRUSTED_KEY = 'customTools.trustedFolders'

/** A trusted project folder and the digests of its modules when it was (last) trusted, by real path. */
export interface TrustedFolder {
  folder: string
  modules: Record<string, string>
}

export class FolderTrust {
  constructor(
    private readonly settings: AppSettingsRepository,
    private readonly now: () => number,
  ) {}

  /** Every trusted folder; a corrupt setting trusts nothing. */
  all(): TrustedFolder[] {
    try {
      const stored = JSON.parse(this.settings.getRaw(TRUSTED_KEY) ?? '[]') as unknown
      if (!Array.isArray(stored)) return []
      return stored.filter(
        (each): each is TrustedFolder =>
          typeof each?.folder === 'string' && typeof each.modules === 'object' && each.modules !== null,
      )
    } catch {
      return []
    }
  }

  /** The trust of the project folder at `project` (any path to it), or undefined. */
  of(project: string, all = this.all()): TrustedFolder | undefined {
    const real = realOf(project)
    return all.find((each) => each.folder === real)
  }

  /** Trusts `folder` (a real path) with its modules as they are now, replacing what was recorded. */
  record(folder: string, modules: Record<string, string>): void {
    const others = this.all().filter((each) => each.folder !== folder)
    this.settings.set(TRUSTED_KEY, [...others, { folder, modules }], this.now())
  }

  forget(folder: string): void {
    this.settings.set(
      TRUSTED_KEY,
      this.all().filter((each) => each.folder !== folder),
      this.now(),
    )
  }
}

/** Whether a module (found in `toolFolder`) is as it was when its project was trusted. */
export function isAsTrusted(trusted: TrustedFolder, module: string, toolFolder: string): boolean {
  const print = fingerprintOf(module, toolFolder)
  return print !== undefined && trusted.modules[print.key] === print.digest
}
