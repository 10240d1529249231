// Run by `npm start`: gets what only the desktop app needs, once, without touching what `npm test`
// and the CLI use.
// 1. The Electron binary: Electron downloads it on first use, not at `npm install`.
// 2. better-sqlite3 for Electron's ABI, which differs from Node's. Node keeps the copy `npm install`
//    built in node_modules; Electron gets its own in .native/electron-<version>/, so `npm start` and
//    `npm test` work on one checkout in either order. A prebuilt binary is downloaded when one
//    exists; otherwise it is compiled against Electron's headers.
import { execFileSync, spawnSync } from 'node:child_process'
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { basename, dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const require = createRequire(join(root, 'package.json'))
const electronDir = dirname(require.resolve('electron/package.json'))
const electronVersion = JSON.parse(readFileSync(join(electronDir, 'package.json'), 'utf8')).version
const target = join(root, '.native', `electron-${electronVersion}`, 'better_sqlite3.node')

function fail(message) {
  console.error(
    `\nAtelier: ${message}\n\`npm test\`, \`npm run web\` and the CLI do not need this and keep working.\n`,
  )
  process.exit(1)
}

if (!existsSync(join(electronDir, 'path.txt'))) {
  const install = spawnSync(process.execPath, [join(electronDir, 'install.js')], { stdio: 'inherit' })
  if (install.status !== 0) fail(`could not download Electron ${electronVersion} (it needs network access).`)
}

if (!existsSync(target)) {
  const source = dirname(require.resolve('better-sqlite3/package.json'))
  const work = mkdtempSync(join(tmpdir(), 'atelier-native-'))
  // A machine-wide `nodedir` (Node's own headers) would silently build for Node's ABI instead.
  const env = { ...process.env }
  delete env.npm_config_nodedir
  const failures = []
  try {
    cpSync(source, work, { recursive: true, filter: (path) => basename(path) !== 'build' })
    for (const [name, command] of buildCommands(source)) {
      try {
        execFileSync(process.execPath, command, { cwd: work, env, stdio: 'inherit' })
        const built = join(work, 'build', 'Release', 'better_sqlite3.node')
        if (!existsSync(built)) throw new Error('no better_sqlite3.node was produced')
        if (loadsInNode(built)) throw new Error("the result was built for Node's ABI, not Electron's")
        mkdirSync(dirname(target), { recursive: true })
        copyFileSync(built, target)
        break
      } catch (error) {
        failures.push(`${name}: ${error instanceof Error ? error.message.split('\n')[0] : error}`)
      }
    }
  } finally {
    rmSync(work, { recursive: true, force: true })
  }
  if (!existsSync(target)) {
    fail(
      `could not get better-sqlite3 for Electron ${electronVersion}:\n${failures.map((f) => `  - ${f}`).join('\n')}\n` +
        'Both ways need network access (a prebuilt binary, or Electron headers plus a C++ toolchain).',
    )
  }
}

function buildCommands(source) {
  const fromSqlite = createRequire(join(source, 'package.json'))
  const electron = [`--target=${electronVersion}`, `--arch=${process.arch}`]
  const commands = []
  const prebuild = resolveOrUndefined(fromSqlite, 'prebuild-install/bin.js')
  if (prebuild) {
    commands.push([
      'prebuilt download',
      [prebuild, '--runtime=electron', ...electron, `--platform=${process.platform}`],
    ])
  }
  // npm tells the scripts it runs where its bundled node-gyp is; outside npm, look beside npm itself.
  const npmBundled = join(
    dirname(process.execPath),
    '..',
    'lib',
    'node_modules',
    'npm',
    'node_modules',
    'node-gyp',
  )
  const nodeGyp =
    process.env.npm_config_node_gyp ??
    resolveOrUndefined(require, 'node-gyp/bin/node-gyp.js') ??
    (existsSync(npmBundled) ? join(npmBundled, 'bin', 'node-gyp.js') : undefined)
  if (nodeGyp) {
    commands.push([
      'compile against Electron headers',
      [
        nodeGyp,
        'rebuild',
        '--release',
        '--runtime=electron',
        ...electron,
        '--dist-url=https://electronjs.org/headers',
      ],
    ])
  }
  return commands
}

/** A binary Node can load was built for Node: Electron would refuse it. */
function loadsInNode(file) {
  return spawnSync(process.execPath, ['-e', `require(${JSON.stringify(file)})`]).status === 0
}

function resolveOrUndefined(resolver, specifier) {
  try {
    return resolver.resolve(specifier)
  } catch {
    return undefined
  }
}
