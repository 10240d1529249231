/**
 * Code intelligence as every layer sees it: the person's settings for language servers, what each
 * server is doing, and the diagnostics an edit brought. The servers themselves live in `src-main/lsp/`.
 */
import { type Static, Type } from '@sinclair/typebox'

/** A server the person adds: the file endings it serves, the command that starts it on stdio. */
export const CustomLanguageServer = Type.Object(
  {
    /** Its name, unique among the servers ("zls", "lua-language-server"). */
    id: Type.String({ minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9._-]+$' }),
    /** File endings without the dot: `zig`, `lua`. */
    languages: Type.Array(Type.String({ minLength: 1, maxLength: 20, pattern: '^[A-Za-z0-9_+-]+$' }), {
      minItems: 1,
      maxItems: 50,
    }),
    /** The program and its arguments; it must speak LSP on stdin and stdout. */
    command: Type.Array(Type.String({ minLength: 1, maxLength: 4096 }), { minItems: 1, maxItems: 100 }),
    /** Sent as `initializationOptions` when it starts. */
    initializationOptions: Type.Optional(Type.Unknown()),
  },
  { additionalProperties: false },
)
export type CustomLanguageServer = Static<typeof CustomLanguageServer>

export const CodeIntelligenceSettings = Type.Object({
  /** Language servers run at all. */
  enabled: Type.Boolean(),
  /** How long an edit's result waits for its diagnostics before it says they are pending. */
  waitSeconds: Type.Number({ minimum: 0.5, maximum: 30 }),
  /** Warnings are reported after edits too, not only errors. */
  warnings: Type.Boolean(),
  /** A server nobody has used this long is ended. */
  idleMinutes: Type.Integer({ minimum: 1, maximum: 1440 }),
  /** The servers switched off, by id. */
  disabled: Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: 100 }),
  /** The person's own servers. */
  servers: Type.Array(CustomLanguageServer, { maxItems: 50 }),
})
export type CodeIntelligenceSettings = Static<typeof CodeIntelligenceSettings>

export const DEFAULT_CODE_INTELLIGENCE_SETTINGS: CodeIntelligenceSettings = {
  enabled: true,
  waitSeconds: 3,
  warnings: false,
  idleMinutes: 10,
  disabled: [],
  servers: [],
}

export const DiagnosticSeverity = Type.Union([
  Type.Literal('error'),
  Type.Literal('warning'),
  Type.Literal('info'),
  Type.Literal('hint'),
])
export type DiagnosticSeverity = Static<typeof DiagnosticSeverity>

/** One diagnostic as a tool result and the card show it; `line` and `column` are 1-based. */
export const FileDiagnostic = Type.Object({
  path: Type.String(),
  line: Type.Number(),
  column: Type.Number(),
  severity: DiagnosticSeverity,
  message: Type.String(),
  source: Type.Optional(Type.String()),
})
export type FileDiagnostic = Static<typeof FileDiagnostic>

/**
 * `running` in at least one folder; `available`: it can start; `missing`: its program is not
 * installed (see `installHint`); `failed`: it crashed again after its one restart, or would not start.
 */
export const LanguageServerState = Type.Union([
  Type.Literal('running'),
  Type.Literal('available'),
  Type.Literal('missing'),
  Type.Literal('failed'),
])
export type LanguageServerState = Static<typeof LanguageServerState>

/** What Settings → Code intelligence and `atelier lsp status` show of one server. */
export const LanguageServerInfo = Type.Object({
  id: Type.String(),
  name: Type.String(),
  /** The file endings it serves. */
  languages: Type.Array(Type.String()),
  /** `shipped` with Atelier, found on `path`, or added by the person (`custom`). */
  origin: Type.Union([Type.Literal('shipped'), Type.Literal('path'), Type.Literal('custom')]),
  enabled: Type.Boolean(),
  state: LanguageServerState,
  /** The program it runs, when found. */
  command: Type.Optional(Type.String()),
  /** How to install it, when missing. */
  installHint: Type.Optional(Type.String()),
  /** Why it failed. */
  error: Type.Optional(Type.String()),
  /** The folders it runs for now. */
  folders: Type.Array(Type.String()),
  /** Its latest log lines: starts, ends, what it wrote on stderr. */
  log: Type.Array(Type.String()),
})
export type LanguageServerInfo = Static<typeof LanguageServerInfo>

/** The answer of Settings' Test button: the server started and said what it can do, or why not. */
export const LanguageServerTest = Type.Union([
  Type.Object({
    ok: Type.Literal(true),
    /** Its name and version, as it gave them. */
    server: Type.Optional(Type.String()),
    /** The capabilities it announced (`definitionProvider`, `hoverProvider`, …). */
    capabilities: Type.Array(Type.String()),
    durationMs: Type.Number(),
  }),
  Type.Object({ ok: Type.Literal(false), error: Type.String() }),
])
export type LanguageServerTest = Static<typeof LanguageServerTest>
