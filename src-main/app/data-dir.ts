import { homedir } from 'node:os'
import { join } from 'node:path'

export const PRODUCT_NAME = 'Atelier'

/**
 * The data directory: `--data-dir`, else `$ATELIER_DATA_DIR`, else the per-user config folder that
 * Electron's `userData` uses for this product name, so the CLI and the desktop app share one place.
 */
export function resolveDataDir(
  flag: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
): string {
  if (flag) return flag
  if (env.ATELIER_DATA_DIR) return env.ATELIER_DATA_DIR
  const home = homedir()
  if (platform === 'darwin') return join(home, 'Library', 'Application Support', PRODUCT_NAME)
  if (platform === 'win32') return join(env.APPDATA ?? join(home, 'AppData', 'Roaming'), PRODUCT_NAME)
  return join(env.XDG_CONFIG_HOME || join(home, '.config'), PRODUCT_NAME)
}
