/**
 * The sandbox as every layer sees it: the person's settings, what this machine has, and what a
 * command's result says of it. The sandbox itself lives in `src-main/tools/sandbox/`.
 */
import { type Static, Type } from '@sinclair/typebox'

export const SandboxSettings = Type.Object({
  /** Every command the agent runs is confined by the operating system, where it can be. */
  enabled: Type.Boolean(),
  /** Sandboxed commands reach the network. */
  network: Type.Boolean(),
  /** Folders sandboxed commands may write besides the bound one. */
  writablePaths: Type.Array(Type.String({ minLength: 1, maxLength: 4096 }), { maxItems: 100 }),
  /** In `ask` and `accept-edits`, a shell call no deny rule matches runs sandboxed without asking. */
  runUnasked: Type.Boolean(),
  /** In `full-auto`, a call that asks to leave the sandbox runs without asking too. */
  escapeInFullAuto: Type.Boolean(),
  /** The programs custom tools start (`api.exec`) run sandboxed, in the call's folder. */
  customTools: Type.Boolean(),
})
export type SandboxSettings = Static<typeof SandboxSettings>

export const DEFAULT_SANDBOX_SETTINGS: SandboxSettings = {
  enabled: true,
  network: false,
  writablePaths: [],
  runUnasked: true,
  escapeInFullAuto: false,
  customTools: true,
}

/**
 * How a command ran: `sandboxed`; `outside` the sandbox, as the person allowed; not sandboxed because
 * it is `off` in the settings or `unavailable` on this machine (with why).
 */
export const SandboxReport = Type.Object({
  state: Type.Union([
    Type.Literal('sandboxed'),
    Type.Literal('outside'),
    Type.Literal('off'),
    Type.Literal('unavailable'),
  ]),
  /** Whether it could reach the network. */
  network: Type.Boolean(),
  reason: Type.Optional(Type.String()),
})
export type SandboxReport = Static<typeof SandboxReport>

/** What `atelier sandbox status` and Settings → Sandbox show. */
export const SandboxInfo = Type.Object({
  available: Type.Boolean(),
  /** `bubblewrap` on Linux, `seatbelt` on macOS, `none` elsewhere. */
  kind: Type.Union([Type.Literal('bubblewrap'), Type.Literal('seatbelt'), Type.Literal('none')]),
  /** Why it is not available, and what to do. */
  reason: Type.Optional(Type.String()),
  fix: Type.Optional(Type.String()),
  executable: Type.Optional(Type.String()),
  /** How long the probe took. */
  probeMs: Type.Optional(Type.Number()),
  settings: SandboxSettings,
})
export type SandboxInfo = Static<typeof SandboxInfo>
