/**
 * Custom tools as the settings panel, the chat header and the CLI see them: every file found in
 * the tool folders, what loading it gave, and whether a project folder is trusted to run code.
 */
import { type Static, Type } from '@sinclair/typebox'

/**
 * Where a tool folder was found: the person's own, a plugin they installed (an Atelier plugin
 * package, or a Claude Code plugin's `tools`), the bound project's, or a path in the settings.
 */
export const ToolFolderOrigin = Type.Union([
  Type.Literal('user'),
  Type.Literal('plugin'),
  Type.Literal('project'),
  Type.Literal('configured'),
])
export type ToolFolderOrigin = Static<typeof ToolFolderOrigin>

/** A load error: a syntax error has its place in the file. */
export const CustomToolLoadError = Type.Object({
  message: Type.String(),
  line: Type.Optional(Type.Number()),
  column: Type.Optional(Type.Number()),
})
export type CustomToolLoadError = Static<typeof CustomToolLoadError>

export const CustomToolSummary = Type.Object({
  name: Type.String(),
  label: Type.String(),
  description: Type.String(),
})
export type CustomToolSummary = Static<typeof CustomToolSummary>

/**
 * One file in a tool folder. `loaded`: its tools are registered; `failed`: it did not load;
 * `conflict`: a tool's name was taken (by a built-in or an earlier file); `duplicate`: the same real
 * file was found through another path and loads there; `metadata`: a `.md` or `.json`, never run;
 * `untrusted`: in a project folder the person has not trusted, so not run; `changed`: added or
 * edited since the person trusted its project folder, so not run until they confirm it (trust the
 * folder again); `pending`: not loaded yet.
 */
export const CustomToolFileInfo = Type.Object({
  path: Type.String(),
  status: Type.Union([
    Type.Literal('loaded'),
    Type.Literal('failed'),
    Type.Literal('conflict'),
    Type.Literal('duplicate'),
    Type.Literal('metadata'),
    Type.Literal('untrusted'),
    Type.Literal('changed'),
    Type.Literal('pending'),
  ]),
  tools: Type.Array(CustomToolSummary),
  error: Type.Optional(CustomToolLoadError),
  /** For `conflict`: every rejected name with the place that holds it. */
  conflicts: Type.Optional(Type.Array(Type.Object({ name: Type.String(), heldBy: Type.String() }))),
  /** For `duplicate`: the path it loads through. */
  duplicateOf: Type.Optional(Type.String()),
  /** The module's log file (what its `logger` wrote, its `onSession` errors). */
  logFile: Type.Optional(Type.String()),
})
export type CustomToolFileInfo = Static<typeof CustomToolFileInfo>

export const CustomToolFolderInfo = Type.Object({
  path: Type.String(),
  origin: ToolFolderOrigin,
  /** The project folder it belongs to; absent for the person's own folders. */
  project: Type.Optional(Type.String()),
  /** Project folders run code only once trusted; the others always are. */
  trusted: Type.Boolean(),
  /** Whether its host process is running now. */
  running: Type.Boolean(),
  /**
   * The variables (names, or `PREFIX*`) its host and the programs it starts get from Atelier's
   * environment besides the shell tool's allowlist (PATH, HOME, LANG…); nothing else is passed.
   */
  environment: Type.Array(Type.String()),
  files: Type.Array(CustomToolFileInfo),
})
export type CustomToolFolderInfo = Static<typeof CustomToolFolderInfo>

export const CustomToolsInfo = Type.Object({
  folders: Type.Array(CustomToolFolderInfo),
  /** The paths set in the settings, as written. */
  configuredPaths: Type.Array(Type.String()),
  /** Configured paths not looked at, with why (a relative path where no folder is bound). */
  skippedPaths: Type.Array(Type.Object({ path: Type.String(), reason: Type.String() })),
  /** Project folders the person trusts to run their tool files, by real path. */
  trustedFolders: Type.Array(Type.String()),
  /**
   * Set when the asked-about project holds tool files that wait for the person's trust: all its
   * modules while the folder is not trusted, or (`changedSinceTrusted`) the ones added or edited
   * since it was. Trusting the folder (again) lets them load.
   */
  trustNeeded: Type.Union([
    Type.Object({
      folder: Type.String(),
      files: Type.Array(Type.String()),
      changedSinceTrusted: Type.Boolean(),
    }),
    Type.Null(),
  ]),
})
export type CustomToolsInfo = Static<typeof CustomToolsInfo>

/** The last part of a module's log, for the settings panel. */
export const CustomToolLog = Type.Object({ path: Type.String(), text: Type.String() })
export type CustomToolLog = Static<typeof CustomToolLog>
