/**
 * Schema 15 widened the default protected paths. A list of protected paths stored before it is the
 * person's, but it was stored whole whenever any preference was saved, so most of them are simply
 * the old defaults; and nobody can have removed an entry that did not exist yet.
 */
import type { Database } from './database'

/** The default list up to schema 14, as it was stored. */
export const DEFAULTS_UP_TO_14 = [
  '.git/**',
  '.husky/**',
  '.envrc',
  '.env*',
  '.vscode/**',
  '.idea/**',
  '.atelier/**',
  '.claude/**',
  '.codex/**',
  '.cursor/**',
  '.mcp.json',
  'package.json',
  'Makefile',
  '.github/workflows/**',
  '.gitlab-ci.yml',
]

/** Old entries that schema 15 widens: where the person kept one, it takes the wider form. */
const WIDENED: Record<string, string> = {
  '.git/**': '**/.git/**',
  '.github/workflows/**': '.github/**',
}

/** Entries new in schema 15. */
const ADDED = [
  '.gitattributes',
  '.gitmodules',
  '.pre-commit-config.yaml',
  '.npmrc',
  '.yarnrc*',
  '.pnpmfile.cjs',
  '**/.cargo/config*',
  '*.code-workspace',
  '.devcontainer/**',
  '.devcontainer.json',
]

/**
 * A stored list equal to the old defaults is dropped, so the defaults apply, now and as they
 * change; any other list keeps its entries (widened) and gets the new ones after them.
 */
export function upgradeStoredProtectedPaths(db: Database): undefined {
  const row = db
    .prepare<[], { value: string }>("SELECT value FROM app_settings WHERE key = 'preferences'")
    .get()
  const preferences = row && parse(row.value)
  const stored = preferences?.protectedPaths
  if (!preferences || !Array.isArray(stored) || !stored.every((path) => typeof path === 'string'))
    return undefined
  if (
    stored.length === DEFAULTS_UP_TO_14.length &&
    stored.every((path, i) => path === DEFAULTS_UP_TO_14[i])
  ) {
    delete preferences.protectedPaths
  } else {
    preferences.protectedPaths = [...new Set([...stored.map((path) => WIDENED[path] ?? path), ...ADDED])]
  }
  db.prepare("UPDATE app_settings SET value = ? WHERE key = 'preferences'").run(JSON.stringify(preferences))
  return undefined
}

function parse(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text)
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined
  } catch {
    return undefined
  }
}
