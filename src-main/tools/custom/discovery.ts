/**
 * Where custom tool modules are found, in order: the person's folders (`~/.atelier/tools`,
 * `~/.claude/tools`, `~/.codex/tools`), the plugins the person installed (packages in
 * `~/.atelier/plugins/node_modules` whose package.json names its tool modules, and the `tools`
 * folders of Claude Code's installed plugins), the bound project's (`.atelier/tools`,
 * `.claude/tools`, `.codex/tools`), then the paths set in the settings (`~` expanded, relative ones
 * against the project; without a project they are skipped, and say so). A module is
 * `*.ts|*.mts|*.js|*.mjs` or `dir/index.(ts|mts|js|mjs)`; `.md` and `.json` are metadata, listed
 * and never run. A real file found twice loads once, where it was found first.
 */
import { readdirSync, readFileSync, realpathSync, statSync } from 'node:fs'
import { homedir } from 'node:os'
import { isAbsolute, join, relative, resolve, sep } from 'node:path'
import type { ToolFolderOrigin } from '../../../src-shared/custom-tools'

export const TOOL_FOLDERS = ['.atelier/tools', '.claude/tools', '.codex/tools']

/** Where the person installs Atelier plugin packages (`npm install --prefix ~/.atelier/plugins …`). */
export const PLUGIN_PACKAGES = '.atelier/plugins/node_modules'
/** Claude Code's registry of the plugins it installed, each with the folder it is cached in. */
export const CLAUDE_PLUGINS = '.claude/plugins/installed_plugins.json'

const MODULE = /\.(ts|mts|js|mjs)$/
const METADATA = /\.(md|json)$/
const INDEX_FILES = ['index.ts', 'index.mts', 'index.js', 'index.mjs']

export interface FoundFile {
  /** As found, through the folder it was found in. */
  path: string
  kind: 'module' | 'metadata'
  /** For a module found before through another path: that path. */
  duplicateOf?: string
}

/** One tool folder: its modules share a host process. */
export interface FoundFolder {
  path: string
  origin: ToolFolderOrigin
  /** The bound project it lies in; such a folder runs code only once the project is trusted. */
  project?: string
  files: FoundFile[]
}

export interface DiscoveryInput {
  home?: string
  /** The bound project folder, or null. */
  project: string | null
  configuredPaths: readonly string[]
}

/** A configured path that was not looked at, and why. */
export interface SkippedPath {
  path: string
  reason: string
}

export interface Discovery {
  folders: FoundFolder[]
  skipped: SkippedPath[]
}

/** The tool folders, in the order they claim names, and the configured paths left out. */
export function discoverToolFolders({
  home = homedir(),
  project,
  configuredPaths,
}: DiscoveryInput): Discovery {
  const roots: Omit<FoundFolder, 'files'>[] = TOOL_FOLDERS.map((folder) => ({
    path: join(home, folder),
    origin: 'user' as const,
  }))
  /** Plugins list their modules: only those are looked at, not the whole package. */
  const pluginFiles = new Map<string, string[]>()
  for (const plugin of pluginPackages(home)) {
    roots.push({ path: plugin.folder, origin: 'plugin' })
    pluginFiles.set(plugin.folder, plugin.modules)
  }
  for (const folder of claudePluginTools(home, project)) roots.push({ path: folder, origin: 'plugin' })
  if (project) {
    roots.push(
      ...TOOL_FOLDERS.map((folder) => ({ path: join(project, folder), origin: 'project' as const, project })),
    )
  }
  const configuredFiles = new Map<string, string[]>()
  /** Roots made for files set on their own; every other root is scanned whole. */
  const fileRoots = new Set<Omit<FoundFolder, 'files'>>()
  const skipped: SkippedPath[] = []
  for (const written of configuredPaths) {
    const expanded = written === '~' || written.startsWith('~/') ? join(home, written.slice(1)) : written
    if (!isAbsolute(expanded) && !project) {
      skipped.push({
        path: written,
        reason: 'A relative path is read against the chat’s project folder, and no folder is bound.',
      })
      continue
    }
    const path = resolve(project ?? home, expanded)
    const inProject = project !== null && isWithin(project, path)
    const info = statOf(path)
    if (info?.isFile()) {
      // A file set on its own belongs to the folder it sits in, alone or with the other files set there.
      const folder = resolve(path, '..')
      if (!configuredFiles.has(folder)) {
        configuredFiles.set(folder, [])
        const root = { path: folder, origin: 'configured' as const, ...(inProject && { project }) }
        fileRoots.add(root)
        roots.push(root)
      }
      configuredFiles.get(folder)?.push(path)
    } else {
      roots.push({ path, origin: 'configured', ...(inProject && { project }) })
    }
  }

  // A file set on its own inside a folder that is scanned anyway (a tool folder, a configured
  // folder) must not narrow that folder to itself.
  const scannedWhole = new Set(
    roots.filter((root) => !fileRoots.has(root) && !pluginFiles.has(root.path)).map((root) => root.path),
  )
  const seen = new Map<string, string>()
  const folders: FoundFolder[] = []
  for (const root of roots) {
    if (folders.some((folder) => folder.path === root.path)) continue
    const listed = scannedWhole.has(root.path)
      ? undefined
      : (pluginFiles.get(root.path) ?? configuredFiles.get(root.path))
    const candidates = listed ? listed.map(moduleFile) : scan(root.path)
    const files = candidates.map((file) => {
      if (file.kind !== 'module') return file
      const real = realOf(file.path)
      const first = seen.get(real)
      if (first !== undefined) return { ...file, duplicateOf: first }
      seen.set(real, file.path)
      return file
    })
    if (files.length > 0) folders.push({ ...root, files })
  }
  return { folders, skipped }
}

/**
 * The installed packages (`name` or `@scope/name`) whose package.json has `"atelier": { "tools":
 * ["./dist/tool.js", …] }`: each is a tool folder of those modules, by their paths in the package.
 */
function pluginPackages(home: string): { folder: string; modules: string[] }[] {
  const root = join(home, PLUGIN_PACKAGES)
  const names = entriesOf(root).flatMap((name) =>
    name.startsWith('@') ? entriesOf(join(root, name)).map((inner) => `${name}/${inner}`) : [name],
  )
  return names.flatMap((name) => {
    const folder = join(root, name)
    const manifest = readJson(join(folder, 'package.json')) as { atelier?: { tools?: unknown } } | undefined
    const tools = manifest?.atelier?.tools
    if (!Array.isArray(tools)) return []
    const modules = tools
      .filter((entry): entry is string => typeof entry === 'string')
      .map((entry) => resolve(folder, entry))
      // A manifest that points outside its package is not the package's to name.
      .filter((module) => isWithin(folder, module))
    return modules.length > 0 ? [{ folder, modules }] : []
  })
}

/**
 * The `tools` folders of the plugins Claude Code installed, as its registry
 * (`~/.claude/plugins/installed_plugins.json`) lists them: `{ plugins: { "name@marketplace":
 * [{ installPath, scope, projectPath? }] } }` (an object in place of the array in its first
 * version). A plugin installed for a project counts only in that project.
 */
function claudePluginTools(home: string, project: string | null): string[] {
  const registry = readJson(join(home, CLAUDE_PLUGINS)) as { plugins?: Record<string, unknown> } | undefined
  const plugins = registry?.plugins
  if (typeof plugins !== 'object' || plugins === null) return []
  return Object.values(plugins).flatMap((installs) => {
    const list = (Array.isArray(installs) ? installs : [installs]) as {
      installPath?: unknown
      scope?: unknown
      projectPath?: unknown
    }[]
    return list.flatMap((install) => {
      if (typeof install?.installPath !== 'string') return []
      const scope = install.scope ?? 'user'
      if (scope !== 'user' && (project === null || install.projectPath !== project)) return []
      return [join(install.installPath, 'tools')]
    })
  })
}

function entriesOf(folder: string): string[] {
  try {
    return readdirSync(folder)
      .filter((name) => !name.startsWith('.'))
      .sort()
  } catch {
    return []
  }
}

function readJson(path: string): unknown {
  try {
    return JSON.parse(readFileSync(path, 'utf8'))
  } catch {
    return undefined
  }
}

/** The folder's modules and metadata, by name; anything else (and deeper folders without an index) is ignored. */
function scan(folder: string): FoundFile[] {
  let entries: { name: string; isDirectory(): boolean; isFile(): boolean; isSymbolicLink(): boolean }[]
  try {
    entries = readdirSync(folder, { withFileTypes: true })
  } catch {
    return []
  }
  const files: FoundFile[] = []
  for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    if (entry.name.startsWith('.')) continue
    const path = join(folder, entry.name)
    const info = entry.isSymbolicLink() ? statOf(path) : entry
    if (!info) continue
    if (info.isDirectory()) {
      const index = INDEX_FILES.map((name) => join(path, name)).find((file) => statOf(file)?.isFile())
      if (index) files.push({ path: index, kind: 'module' })
    } else if (info.isFile()) {
      if (METADATA.test(entry.name)) files.push({ path, kind: 'metadata' })
      else if (MODULE.test(entry.name) && !entry.name.endsWith('.d.ts')) files.push({ path, kind: 'module' })
    }
  }
  return files
}

function moduleFile(path: string): FoundFile {
  return { path, kind: METADATA.test(path) || !MODULE.test(path) ? 'metadata' : 'module' }
}

function statOf(path: string): ReturnType<typeof statSync> | undefined {
  try {
    return statSync(path)
  } catch {
    return undefined
  }
}

/** The real path (links resolved); a path that is not there stays as given. */
export function realOf(path: string): string {
  try {
    return realpathSync(path)
  } catch {
    return path
  }
}

function isWithin(folder: string, path: string): boolean {
  const rel = relative(realOf(folder), realOf(path))
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel))
}
