/**
 * electron-builder's configuration, for `npm run dist` (README "Installers"): the installers of the
 * machine it runs on, from the built app in out/, packed into app.asar.
 */

import electronPackage from 'electron/package.json'
import type { Configuration } from 'electron-builder'
import { afterPack, nativeBindingFile } from './scripts/after-pack'
import { PRODUCT_NAME } from './src-main/app/data-dir'

const electronVersion = electronPackage.version

const config = {
  appId: 'dev.atelier.app',
  productName: PRODUCT_NAME,
  // The Electron that `npm start` runs, whose ABI the better-sqlite3 build in .native/ matches.
  electronVersion,
  directories: { output: 'dist' },
  // package.json and the production dependencies of node_modules are added by electron-builder.
  files: [
    'out/**',
    // The window icon src-main/index.ts loads.
    'resources/icon.png',
    nativeBindingFile(electronVersion),
    // better-sqlite3's own build is for Node's ABI, and its sources are only for building it.
    '!node_modules/better-sqlite3/{build,deps,src}/**',
    // The shell parser uses the grammar's WebAssembly build only, never its native addon.
    '!node_modules/tree-sitter-bash/{prebuilds,src,bindings}/**',
  ],
  asar: true,
  // Native code cannot be loaded from inside an archive: Electron loads these from app.asar.unpacked.
  // The language servers run as scripts of a separate Node process, which cannot read inside the archive.
  asarUnpack: [
    '**/*.node',
    'node_modules/typescript-language-server/**',
    'node_modules/pyright/**',
    'node_modules/typescript/**',
  ],
  // electron-builder would rebuild native modules in node_modules itself, for Electron, replacing
  // the Node build that `npm test` and the CLI use; the Electron build comes from .native/ instead.
  npmRebuild: false,
  afterPack,
  // No update server: nothing is uploaded anywhere.
  publish: null,
  linux: {
    target: ['AppImage', 'deb'],
    icon: 'resources/icon.png',
    category: 'Development',
    // A deb must name a maintainer: the identity the project's commits carry.
    maintainer: 'Seed 93c7d649 maintainers <maintainers@users.noreply.a-seed-93c7d649.example>',
  },
  mac: {
    target: ['dmg'],
    icon: 'resources/icon.icns',
    category: 'public.app-category.developer-tools',
  },
  win: {
    target: ['nsis'],
    icon: 'resources/icon.ico',
  },
} satisfies Configuration

export default config
