/**
 * electron-builder's afterPack step, wired in `electron-builder.config.ts`. It runs on the unpacked
 * app of each platform and architecture, before electron-builder signs it and makes the installers:
 * it refuses a package that lacks a better-sqlite3 its Electron can load, then flips Electron's fuses —
 * switches compiled into the Electron binary that no flag or environment variable can turn back.
 */
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { type FuseV1Config, FuseV1Options, FuseVersion, flipFuses } from '@electron/fuses'
import { Arch, archFromString } from 'electron-builder'

/** electron-builder's architectures, which `PackedApp.arch` holds. */
export { Arch }

/**
 * The fuses Atelier sets (README "Installers" says why, at more length); every other fuse keeps
 * Electron's default.
 */
export const fuses = {
  // ELECTRON_RUN_AS_NODE would turn the app's own, trusted binary into a Node that runs any script.
  [FuseV1Options.RunAsNode]: false,
  // Chromium's cookie store is encrypted with a key the OS keychain holds.
  [FuseV1Options.EnableCookieEncryption]: true,
  // NODE_OPTIONS (`--require`, `--import`) would inject code into the main process at launch.
  [FuseV1Options.EnableNodeOptionsEnvironmentVariable]: false,
  // `--inspect` and kin would open a debugger on the main process, which holds the API keys.
  [FuseV1Options.EnableNodeCliInspectArguments]: false,
  // app.asar must match the hash electron-builder embeds (checked on macOS and Windows).
  [FuseV1Options.EnableEmbeddedAsarIntegrityValidation]: true,
  // Without it Electron would also run an `app/` folder placed beside app.asar, unchecked.
  [FuseV1Options.OnlyLoadAppFromAsar]: true,
  // The UI comes from the app's own `atelier://` scheme; file:// pages get no privileges beyond a web page's.
  [FuseV1Options.GrantFileProtocolExtraPrivileges]: false,
} as const satisfies Partial<Record<FuseV1Options, boolean>>

/** What this step reads of electron-builder's `AfterPackContext`. */
export interface PackedApp {
  /** The folder holding the unpacked app for one platform and architecture. */
  readonly appOutDir: string
  /** `linux`, `darwin` or `win32`. */
  readonly electronPlatformName: string
  readonly arch: Arch
  readonly packager: {
    readonly appInfo: { readonly productFilename: string }
    /** Only the Linux packager has it: the binary's name there (the package name, lower case). */
    readonly executableName?: string
    readonly info: { readonly framework: { readonly version: string } }
  }
}

/**
 * Where the Electron build of better-sqlite3 sits in the app, relative to its root (app.asar in a
 * package): `src-main/index.ts` looks for it there, and `scripts/prepare-electron.js` builds it there.
 */
export function nativeBindingFile(electronVersion: string): string {
  return `.native/electron-${electronVersion}/better_sqlite3.node`
}

/** The Electron binary electron-builder renamed, which @electron/fuses patches. */
export function electronBinaryPath(app: PackedApp): string {
  const { appOutDir, electronPlatformName, packager } = app
  switch (electronPlatformName) {
    case 'linux':
      if (packager.executableName === undefined) throw new Error('The Linux packager named no executable.')
      return join(appOutDir, packager.executableName)
    case 'darwin':
      return join(appOutDir, `${packager.appInfo.productFilename}.app`)
    case 'win32':
      return join(appOutDir, `${packager.appInfo.productFilename}.exe`)
    default:
      throw new Error(`Atelier is not packaged for ${electronPlatformName}.`)
  }
}

/** The folder holding app.asar and app.asar.unpacked. */
export function resourcesDir(app: PackedApp): string {
  return app.electronPlatformName === 'darwin'
    ? join(electronBinaryPath(app), 'Contents', 'Resources')
    : join(app.appOutDir, 'resources')
}

/** Electron reads an unpacked file of app.asar from app.asar.unpacked, where this must be. */
export function packedNativeBindingPath(app: PackedApp): string {
  return join(resourcesDir(app), 'app.asar.unpacked', nativeBindingFile(app.packager.info.framework.version))
}

/** What `flipFuses` gets for this package. */
export function fuseConfig(app: PackedApp): FuseV1Config {
  return {
    version: FuseVersion.V1,
    // Flipping a fuse edits the binary, which voids the ad-hoc signature an arm64 Mac needs to run it.
    resetAdHocDarwinSignature: app.electronPlatformName === 'darwin' && app.arch === Arch.arm64,
    ...fuses,
  }
}

/** The platform and architecture scripts/prepare-electron.js builds better-sqlite3 for: this machine's. */
export function thisMachine(): { platform: string; arch: Arch } {
  return { platform: process.platform, arch: archFromString(process.arch) }
}

/** The hook electron-builder calls with its `AfterPackContext` for every platform and architecture. */
export async function afterPack(app: PackedApp): Promise<void> {
  // A package for another OS or CPU would carry a better-sqlite3 its Electron cannot load, and the
  // app would fail at start.
  const host = thisMachine()
  if (app.electronPlatformName !== host.platform || app.arch !== host.arch) {
    throw new Error(
      `Atelier packages only for the machine it is built on (${host.platform}-${Arch[host.arch]}), ` +
        `not ${app.electronPlatformName}-${Arch[app.arch]}: better-sqlite3 for Electron is built for this one. ` +
        'Build that installer on a matching machine.',
    )
  }
  const binding = packedNativeBindingPath(app)
  if (!existsSync(binding)) {
    throw new Error(
      `The package lacks better-sqlite3 for Electron ${app.packager.info.framework.version} (${binding}). ` +
        '`npm run dist` builds it first with scripts/prepare-electron.js.',
    )
  }
  await flipFuses(electronBinaryPath(app), fuseConfig(app))
}
