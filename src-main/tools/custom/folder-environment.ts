/**
 * The environment a tool folder's host runs with, and the programs its modules start: the shell
 * tool's allowlist (what programs need, nothing that holds a credential) and the variables the
 * person passes to that folder by name — never the whole of Atelier's, with every provider key and
 * token it was started with. Kept in the app settings as `customTools.environment`:
 * `{ realFolderPath: ['NAME', 'PREFIX*', …] }`.
 */
import { AtelierError } from '../../../src-shared/errors'
import type { AppSettingsRepository } from '../../db/app-settings-repository'
import { shellEnvironment } from '../builtin/shell'
import { realOf } from './discovery'

const ENVIRONMENT_KEY = 'customTools.environment'
/** A variable's name, or a prefix and `*` (`JAVA_*`); a lone `*` would pass everything. */
const PASSED_NAME = /^[A-Za-z_][A-Za-z0-9_]*\*?$/

export class FolderEnvironment {
  constructor(
    private readonly settings: AppSettingsRepository,
    private readonly now: () => number,
  ) {}

  /** The names the person passes to the tool folder at `folder` (any path to it). */
  names(folder: string): string[] {
    return this.all()[realOf(folder)] ?? []
  }

  /** Sets the names passed to `folder`; an empty list passes the allowlist alone. Returns them as stored. */
  set(folder: string, names: readonly string[]): string[] {
    const wrong = names.find((name) => !PASSED_NAME.test(name))
    if (wrong !== undefined) {
      throw new AtelierError(
        'invalid_parameters',
        `"${wrong}" is not a variable name: letters, digits and "_", or a prefix and "*" (JAVA_*).`,
        { name: wrong },
      )
    }
    const { [realOf(folder)]: _, ...others } = this.all()
    const unique = [...new Set(names)]
    this.settings.set(
      ENVIRONMENT_KEY,
      unique.length > 0 ? { ...others, [realOf(folder)]: unique } : others,
      this.now(),
    )
    return unique
  }

  /** The environment a host of `folder` runs with, taken from `env` (Atelier's own). */
  of(folder: string, env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
    return shellEnvironment(env, { passSecrets: false, passEnvironment: this.names(folder) })
  }

  private all(): Record<string, string[]> {
    try {
      const stored = JSON.parse(this.settings.getRaw(ENVIRONMENT_KEY) ?? '{}') as unknown
      if (typeof stored !== 'object' || stored === null || Array.isArray(stored)) return {}
      return Object.fromEntries(
        Object.entries(stored).map(([folder, names]) => [
          folder,
          Array.isArray(names)
            ? names.filter((name) => typeof name === 'string' && PASSED_NAME.test(name))
            : [],
        ]),
      )
    } catch {
      // A corrupt setting passes the allowlist alone.
      return {}
    }
  }
}
