import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { FuseV1Options, FuseVersion } from '@electron/fuses'
import picomatch from 'picomatch'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import config from '../../../electron-builder.config'
import packageJson from '../../../package.json'
import {
  Arch,
  afterPack,
  electronBinaryPath,
  fuseConfig,
  fuses,
  nativeBindingFile,
  type PackedApp,
  packedNativeBindingPath,
  thisMachine,
} from '../../../scripts/after-pack'
import { PRODUCT_NAME } from '../../../src-main/app/data-dir'

const root = fileURLToPath(new URL('../../..', import.meta.url))
// Read, not imported: only src-main/index.ts may import from electron (test/boundaries.test.ts).
const electronVersion: string = JSON.parse(
  readFileSync(join(root, 'node_modules', 'electron', 'package.json'), 'utf8'),
).version

/** A packed app as electron-builder describes it to afterPack: plain data. */
function packedApp(electronPlatformName: string, arch: Arch, appOutDir = '/dist/unpacked'): PackedApp {
  return {
    appOutDir,
    electronPlatformName,
    arch,
    packager: {
      appInfo: { productFilename: 'Atelier' },
      ...(electronPlatformName === 'linux' ? { executableName: 'atelier' } : {}),
      info: { framework: { version: '45.5.0' } },
    },
  }
}

/** electron-builder matches `files` and `asarUnpack` like this (dotfiles included). */
function matches(pattern: string, path: string): boolean {
  return picomatch.isMatch(path, pattern, { dot: true })
}

const includePatterns = config.files.filter((pattern) => !pattern.startsWith('!'))
const excludePatterns = config.files.filter((pattern) => pattern.startsWith('!')).map((p) => p.slice(1))

describe('electron-builder config', () => {
  it('makes AppImage and deb on Linux, dmg on macOS, nsis on Windows', () => {
    expect(config.linux.target).toEqual(['AppImage', 'deb'])
    expect(config.mac.target).toEqual(['dmg'])
    expect(config.win.target).toEqual(['nsis'])
  })

  it('names the app Atelier with the id dev.atelier.app, the name its data folder is called by', () => {
    expect(config.appId).toBe('dev.atelier.app')
    expect(config.productName).toBe('Atelier')
    expect(config.productName).toBe(PRODUCT_NAME)
    expect(packageJson.productName).toBe(PRODUCT_NAME)
  })

  it('packs the app into asar and leaves every native module outside it', () => {
    expect(config.asar).toBe(true)
    const unpacked = (path: string) => config.asarUnpack.some((pattern) => matches(pattern, path))
    expect(unpacked(nativeBindingFile(electronVersion))).toBe(true)
    expect(unpacked('node_modules/some-addon/build/Release/addon.node')).toBe(true)
    expect(unpacked('out/main/index.js')).toBe(false)
  })

  it('ships the Electron build of better-sqlite3 for the Electron it packs, where src-main/index.ts looks', () => {
    expect(config.electronVersion).toBe(electronVersion)
    expect(config.files).toContain(nativeBindingFile(electronVersion))
    expect(nativeBindingFile('45.5.0')).toBe('.native/electron-45.5.0/better_sqlite3.node')
    // index.ts imports electron and cannot run here: its lookup is read as text, so a change to
    // either side fails this test instead of shipping an app that cannot open its database.
    const entry = readFileSync(join(root, 'src-main', 'index.ts'), 'utf8')
    expect(entry).toMatch(
      /join\(\s*app\.getAppPath\(\),\s*'\.native',\s*`electron-\$\{process\.versions\.electron\}`,\s*'better_sqlite3\.node',?\s*\)/,
    )
  })

  it('ships the built app and the window icon, not the sources, tests or other builds', () => {
    const included = (path: string) => includePatterns.some((pattern) => matches(pattern, path))
    for (const path of ['out/main/index.js', 'out/preload/index.cjs', 'out/renderer/index.html']) {
      expect(included(path), path).toBe(true)
    }
    expect(included('resources/icon.png')).toBe(true)
    for (const path of [
      'src-main/index.ts',
      'test/main/app/packaging.test.ts',
      'bench/run.ts',
      'scripts/prepare-electron.js',
      'resources/icon.icns',
      '.native/electron-1.0.0/better_sqlite3.node',
      'dist/linux-unpacked/resources/app.asar',
    ]) {
      expect(included(path), path).toBe(false)
    }
  })

  it("leaves out better-sqlite3's Node build and its sources, keeping its JavaScript", () => {
    const excluded = (path: string) => excludePatterns.some((pattern) => matches(pattern, path))
    expect(excluded('node_modules/better-sqlite3/build/Release/better_sqlite3.node')).toBe(true)
    expect(excluded('node_modules/better-sqlite3/deps/sqlite3/sqlite3.c')).toBe(true)
    expect(excluded('node_modules/better-sqlite3/src/better_sqlite3.cpp')).toBe(true)
    expect(excluded('node_modules/better-sqlite3/lib/index.js')).toBe(false)
    expect(excluded('node_modules/better-sqlite3/package.json')).toBe(false)
  })

  it('does not rebuild node_modules for Electron, which would break the Node build tests use', () => {
    expect(config.npmRebuild).toBe(false)
  })

  it('runs the after-pack step, from scripts/after-pack.ts', () => {
    expect(config.afterPack).toBe(afterPack)
    expect(existsSync(join(root, 'scripts', 'after-pack.ts'))).toBe(true)
  })

  it('gives each platform an icon in a format electron-builder uses without converting it', () => {
    // Converting would fetch electron-builder's icon tool from GitHub at build time.
    const icns = readFileSync(join(root, config.mac.icon))
    expect(icns.subarray(0, 4).toString('latin1')).toBe('icns')
    expect(icns.readUInt32BE(4)).toBe(icns.length)

    const ico = readFileSync(join(root, config.win.icon))
    expect([ico.readUInt16LE(0), ico.readUInt16LE(2)]).toEqual([0, 1])
    const widths = Array.from({ length: ico.readUInt16LE(4) }, (_, i) => ico[6 + i * 16] || 256)
    expect(widths).toContain(256)

    const png = readFileSync(join(root, config.linux.icon))
    expect(png.subarray(1, 4).toString('latin1')).toBe('PNG')
    expect(Math.min(png.readUInt32BE(16), png.readUInt32BE(20))).toBeGreaterThanOrEqual(256)
  })

  it('names the deb maintainer with an email, and publishes nowhere', () => {
    expect(config.linux.maintainer).toMatch(/^.+ <[^@\s]+@[^@\s]+>$/)
    expect(config.publish).toBeNull()
  })
})

describe('fuses', () => {
  it('turns off running as Node, NODE_OPTIONS, inspect flags and file:// privileges; turns on the rest', () => {
    expect(fuses).toEqual({
      [FuseV1Options.RunAsNode]: false,
      [FuseV1Options.EnableCookieEncryption]: true,
      [FuseV1Options.EnableNodeOptionsEnvironmentVariable]: false,
      [FuseV1Options.EnableNodeCliInspectArguments]: false,
      [FuseV1Options.EnableEmbeddedAsarIntegrityValidation]: true,
      [FuseV1Options.OnlyLoadAppFromAsar]: true,
      [FuseV1Options.GrantFileProtocolExtraPrivileges]: false,
    })
  })

  describe('fuseConfig', () => {
    it('carries every fuse and re-signs ad hoc only on arm64 macOS', () => {
      expect(fuseConfig(packedApp('darwin', Arch.arm64))).toEqual({
        version: FuseVersion.V1,
        resetAdHocDarwinSignature: true,
        ...fuses,
      })
      expect(fuseConfig(packedApp('darwin', Arch.x64)).resetAdHocDarwinSignature).toBe(false)
      expect(fuseConfig(packedApp('linux', Arch.arm64)).resetAdHocDarwinSignature).toBe(false)
      expect(fuseConfig(packedApp('win32', Arch.arm64)).resetAdHocDarwinSignature).toBe(false)
    })
  })
})

describe('electronBinaryPath', () => {
  it('is the renamed executable on Linux, the .app on macOS and the .exe on Windows', () => {
    expect(electronBinaryPath(packedApp('linux', Arch.x64))).toBe(join('/dist/unpacked', 'atelier'))
    expect(electronBinaryPath(packedApp('darwin', Arch.arm64))).toBe(join('/dist/unpacked', 'Atelier.app'))
    expect(electronBinaryPath(packedApp('win32', Arch.x64))).toBe(join('/dist/unpacked', 'Atelier.exe'))
  })

  it('refuses a platform Atelier is not packaged for', () => {
    expect(() => electronBinaryPath(packedApp('freebsd', Arch.x64))).toThrow('not packaged for freebsd')
  })
})

describe('packedNativeBindingPath', () => {
  it("is in app.asar.unpacked beside app.asar, inside the bundle's Resources on macOS", () => {
    const binding = join('.native', 'electron-45.5.0', 'better_sqlite3.node')
    expect(packedNativeBindingPath(packedApp('linux', Arch.x64))).toBe(
      join('/dist/unpacked', 'resources', 'app.asar.unpacked', binding),
    )
    expect(packedNativeBindingPath(packedApp('win32', Arch.x64))).toBe(
      join('/dist/unpacked', 'resources', 'app.asar.unpacked', binding),
    )
    expect(packedNativeBindingPath(packedApp('darwin', Arch.arm64))).toBe(
      join('/dist/unpacked', 'Atelier.app', 'Contents', 'Resources', 'app.asar.unpacked', binding),
    )
  })
})

// On macOS the fuses live in the framework and arm64 re-signs with codesign: not fakeable here.
describe.skipIf(process.platform === 'darwin')('afterPack (a packed app for this machine, on disk)', () => {
  const host = thisMachine()
  const SENTINEL = 'dL7pKGdnNz796PbbjQWNKmHXBZaB9tsX'
  // Electron's defaults for the eight fuses this @electron/fuses knows, and a ninth it does not
  // (a newer Electron's), which must be left alone.
  const SHIPPED_WIRE = '101100011'
  let dir: string
  let app: PackedApp

  /** An Electron binary is opaque bytes around the fuse wire: sentinel, version 1, length, states. */
  function writeBinary(path: string): void {
    const wire = Buffer.from([1, SHIPPED_WIRE.length, ...Buffer.from(SHIPPED_WIRE, 'latin1')])
    writeFileSync(
      path,
      Buffer.concat([Buffer.from('\x7fELF…'), Buffer.from(SENTINEL), wire, Buffer.from('…')]),
    )
  }

  function readWire(path: string): string {
    const binary = readFileSync(path)
    const at = binary.indexOf(SENTINEL) + SENTINEL.length + 2
    return binary.subarray(at, at + SHIPPED_WIRE.length).toString('latin1')
  }

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'atelier-packed-'))
    app = packedApp(host.platform, host.arch, dir)
    writeBinary(electronBinaryPath(app))
    mkdirSync(join(packedNativeBindingPath(app), '..'), { recursive: true })
    writeFileSync(packedNativeBindingPath(app), 'native code')
  })

  afterEach(() => rmSync(dir, { recursive: true, force: true }))

  it('flips exactly the fuses above in the binary and leaves the others as Electron set them', async () => {
    await afterPack(app)
    // RunAsNode 0, cookies 1, NODE_OPTIONS 0, inspect 0, asar integrity 1, asar only 1,
    // V8 snapshot unchanged 0, file:// privileges 0, the unknown ninth unchanged 1.
    expect(readWire(electronBinaryPath(app))).toBe('010011001')
  })

  it('refuses a package without the Electron build of better-sqlite3, and flips nothing', async () => {
    rmSync(packedNativeBindingPath(app))
    await expect(afterPack(app)).rejects.toThrow('lacks better-sqlite3 for Electron 45.5.0')
    expect(readWire(electronBinaryPath(app))).toBe(SHIPPED_WIRE)
  })

  it('refuses a package for another CPU, whose better-sqlite3 would not load', async () => {
    const otherArch = host.arch === Arch.arm64 ? Arch.x64 : Arch.arm64
    await expect(afterPack({ ...app, arch: otherArch })).rejects.toThrow(
      'only for the machine it is built on',
    )
    expect(readWire(electronBinaryPath(app))).toBe(SHIPPED_WIRE)
  })
})
