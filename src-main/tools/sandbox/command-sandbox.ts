/**
 * The sandbox as the agent's commands meet it: the platform's sandbox (found once, on first use),
 * the person's settings, and the policy built for the folder a command runs in. It confines a
 * command, or says why it runs as it is — and says so on every result.
 */
import { randomUUID } from 'node:crypto'
import { cpSync, existsSync, mkdirSync, mkdtempSync, realpathSync, renameSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, relative, resolve } from 'node:path'
import { AtelierError } from '../../../src-shared/errors'
import type { SandboxInfo, SandboxReport, SandboxSettings } from '../../../src-shared/sandbox'
import { findOnPath } from '../processes'
import type { SandboxCommand } from './policy'
import { protectedWithin } from './protected-within'
import { Sandbox } from './sandbox'
import { sandboxPolicy } from './sandbox-policy'

export interface CommandSandboxDeps {
  settings(): SandboxSettings
  /** The approvals' protected paths, read-only inside the folder. */
  protectedPaths(): readonly string[]
  home: string
  dataDir: string
  /** Finds the platform's sandbox; by default a probe of this machine. */
  detect?: () => Promise<Sandbox>
}

/** A command as it will run, what the card says of it, and what to tidy once it has ended. */
export interface ConfinedCommand {
  command: SandboxCommand
  report: SandboxReport
  /**
   * Tidies up once it has ended; returns the protected paths it created, moved aside (see
   * `CommandSandbox.moveAside`), relative to its folder.
   */
  done(): string[]
}

/** Where Atelier keeps what confined commands created at protected paths, under its data folder. */
const MOVED_ASIDE_FOLDER = 'sandbox-moved-aside'

/** Confines a program the person set to run in the sandbox: see `CommandSandbox.confineServer`. */
export type ConfineServer = (
  command: SandboxCommand,
  folder: string | null,
  name: string,
) => Promise<ConfinedCommand>

/**
 * A server's command as it starts (a stdio MCP server or tool service, named `name`): as it is, or
 * confined to `folder` when the person set it to run in the sandbox — never unconfined then, even
 * where nothing was wired to confine it.
 */
export async function serverLaunch(
  command: SandboxCommand,
  {
    sandboxed,
    folder,
    name,
    confine,
  }: {
    sandboxed: boolean | undefined
    folder: string | null
    name: string
    confine: ConfineServer | undefined
  },
): Promise<Pick<ConfinedCommand, 'command' | 'done'>> {
  if (!sandboxed) return { command, done: () => [] }
  if (!confine) {
    throw new AtelierError(
      'sandbox_unavailable',
      `${name} is set to run in the sandbox, which is not available here.`,
    )
  }
  return confine(command, folder, name)
}

/** Confines a program a custom tool starts: see `CommandSandbox.confineProgram`. */
export type ConfineProgram = (command: SandboxCommand, folder: string | null) => Promise<ConfinedCommand>

export class CommandSandbox {
  private sandbox?: Promise<Sandbox>

  constructor(private readonly deps: CommandSandboxDeps) {}

  /** The contract's `sandbox.status`: what this machine has (found once), and the settings. */
  async info(): Promise<SandboxInfo> {
    const { status } = await this.platform()
    return { ...status, settings: this.deps.settings() }
  }

  /** Whether a command of the agent runs confined now: on in the settings, and working here. */
  async confines(): Promise<boolean> {
    return this.deps.settings().enabled && (await this.platform()).available
  }

  /**
   * `command` as it will run in `folder`: confined, unless the sandbox is off or missing here (then
   * as it is, and said so), or the person allowed this call outside it.
   */
  async confine(
    command: SandboxCommand,
    folder: string | null,
    {
      outside = false,
      network = false,
      moveAside = true,
    }: {
      outside?: boolean
      network?: boolean
      /** Protected paths it creates are moved aside when it ends (not for servers, which outlive any call). */
      moveAside?: boolean
    } = {},
  ): Promise<ConfinedCommand> {
    const settings = this.deps.settings()
    const sandbox = await this.platform()
    const as = (report: SandboxReport): ConfinedCommand => ({ command, report, done: () => [] })
    if (outside) return as({ state: 'outside', network: true })
    if (!settings.enabled) return as({ state: 'off', network: true })
    if (!sandbox.available) {
      const { status } = sandbox
      return as({ state: 'unavailable', network: true, reason: status.available ? '' : status.reason })
    }
    // Seatbelt cannot give a command a private /tmp: it gets a folder of its own, removed after.
    const tempDir =
      sandbox.status.kind === 'seatbelt' ? mkdtempSync(join(tmpdir(), 'atelier-sandbox-')) : '/tmp'
    const allowNetwork = settings.network || network
    const protectedPaths = this.deps.protectedPaths()
    const policy = sandboxPolicy({
      folder,
      protectedPaths,
      writablePaths: settings.writablePaths,
      home: this.deps.home,
      dataDir: this.deps.dataDir,
      network: allowNetwork,
      tempDir,
    })
    const protectedBefore = new Set(policy.readOnly)
    return {
      command: sandbox.confine(command, policy),
      report: { state: 'sandboxed', network: allowNetwork },
      done: () => {
        if (tempDir !== '/tmp') rmSync(tempDir, { recursive: true, force: true })
        return folder === null || !moveAside ? [] : this.moveAside(folder, protectedPaths, protectedBefore)
      },
    }
  }

  /**
   * A program a custom tool starts (`api.exec`) in a call whose folder is `folder`: confined as the
   * agent's commands are, unless the person turned the sandbox off for custom tools.
   */
  async confineProgram(command: SandboxCommand, folder: string | null): Promise<ConfinedCommand> {
    // A program that is not there fails to start (ENOENT) as it would unconfined, not as the sandbox's exit code.
    if (this.deps.settings().customTools && programExists(command)) return this.confine(command, folder)
    return { command, report: { state: 'off', network: true }, done: () => [] }
  }

  /**
   * A program the person set to run in the sandbox (a stdio MCP server or tool service, named
   * `name`): confined, writing only `folder` (its working folder, when it has one set), with the
   * network as the settings say. With the sandbox off in the settings it runs as it is; where the
   * sandbox is missing it does not run at all — it never runs unconfined unbeknown to the person.
   */
  async confineServer(
    command: SandboxCommand,
    folder: string | null,
    name: string,
  ): Promise<ConfinedCommand> {
    const confined = await this.confine(command, folder, { moveAside: false })
    const { report } = confined
    if (report.state !== 'unavailable') return confined
    throw new AtelierError(
      'sandbox_unavailable',
      `${name} is set to run in the sandbox, which is not available here: ${report.reason} Turn its sandbox switch off to run it anyway.`,
    )
  }

  /**
   * A program that reads a project and changes nothing in it (a language server): confined to
   * read `folder` and `readable` (its own code; both visible even under the private /tmp) and write only its temp
   * folder and the person's writable paths, where the sandbox is on and works here; as it is
   * otherwise, since it is Atelier's own or the person's chosen program, not the agent's command.
   */
  async confineReader(
    command: SandboxCommand,
    folder: string,
    readable: readonly string[] = [],
  ): Promise<SandboxCommand> {
    const settings = this.deps.settings()
    const sandbox = await this.platform()
    if (!settings.enabled || !sandbox.available) return command
    const policy = sandboxPolicy({
      folder: null,
      protectedPaths: [],
      writablePaths: settings.writablePaths,
      home: this.deps.home,
      dataDir: this.deps.dataDir,
      network: settings.network,
      tempDir: '/tmp',
    })
    const real = [folder, ...readable].map((path) => (existsSync(path) ? realpathSync(path) : path))
    return sandbox.confine(command, { ...policy, readOnly: [...policy.readOnly, ...real] })
  }

  /**
   * The sandbox binds read-only only the protected paths that exist: one a confined command created
   * where none was (a `.npmrc`, a `.vscode` folder, a nested `.git`) is moved out of the folder, to
   * Atelier's data folder, so it takes effect nowhere and nothing is lost. Returns them, relative.
   */
  private moveAside(folder: string, patterns: readonly string[], before: ReadonlySet<string>): string[] {
    let root: string
    try {
      root = realpathSync(folder)
    } catch {
      return [] // the folder itself is gone: nothing in it takes effect
    }
    const kept = [...before]
    const created = protectedWithin(root, patterns).filter(
      (path) => !before.has(path) && !kept.some((old) => path.startsWith(`${old}/`)),
    )
    if (created.length === 0) return []
    const shelf = join(this.deps.dataDir, MOVED_ASIDE_FOLDER, `${Date.now()}-${randomUUID().slice(0, 8)}`)
    for (const path of created) {
      const target = join(shelf, relative(root, path))
      mkdirSync(dirname(target), { recursive: true })
      try {
        renameSync(path, target)
      } catch {
        // Another file system: copied, then removed.
        cpSync(path, target, { recursive: true })
        rmSync(path, { recursive: true, force: true })
      }
    }
    return created.map((path) => relative(root, path))
  }

  private platform(): Promise<Sandbox> {
    this.sandbox ??= (this.deps.detect ?? (() => Sandbox.detect()))()
    return this.sandbox
  }
}

/** Whether the program a command names is there to run: by its path, or found on its PATH. */
function programExists({ file, cwd, env }: SandboxCommand): boolean {
  if (file.includes('/')) return existsSync(resolve(cwd, file))
  return findOnPath(file, env.PATH) !== undefined
}
