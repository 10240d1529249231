/**
 * The language servers Atelier knows: the two it ships (TypeScript/JavaScript, Python), those it
 * uses when they are on PATH (Go, Rust, C/C++), and the person's own. Each says which file endings
 * it serves, how to start it, and how to install it when it is missing. Finding them starts nothing.
 */
import { existsSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, extname, isAbsolute, join, sep } from 'node:path'
import type { CustomLanguageServer, LanguageServerInfo } from '../../src-shared/code-intelligence'
import { findOnPath } from '../tools/processes'

/** A server as Atelier starts it. */
export interface LanguageServerDefinition {
  id: string
  name: string
  origin: LanguageServerInfo['origin']
  /** File endings without the dot. */
  extensions: readonly string[]
  /** The argv that starts it on stdio, or undefined when its program is not installed. */
  argv: string[] | undefined
  installHint?: string
  initializationOptions?: unknown
  /**
   * Folders its own code lives in, which a sandboxed server must read wherever they are: a shipped
   * server's dependencies may sit under /tmp (a checkout there, an AppImage's mount), which the
   * sandbox's private /tmp would hide.
   */
  readable?: string[]
}

const TYPESCRIPT_EXTENSIONS = ['ts', 'tsx', 'mts', 'cts', 'js', 'jsx', 'mjs', 'cjs']

/** The LSP language id of a file ending; most are the ending itself. */
const LANGUAGE_IDS: Record<string, string> = {
  ts: 'typescript',
  mts: 'typescript',
  cts: 'typescript',
  tsx: 'typescriptreact',
  js: 'javascript',
  mjs: 'javascript',
  cjs: 'javascript',
  jsx: 'javascriptreact',
  py: 'python',
  pyi: 'python',
  rs: 'rust',
  h: 'c',
  cc: 'cpp',
  cxx: 'cpp',
  hpp: 'cpp',
  hh: 'cpp',
}

/** A file's ending, lower case, without the dot. */
export function extensionOf(path: string): string {
  return extname(path).slice(1).toLowerCase()
}

export function languageIdOf(path: string): string {
  const extension = extensionOf(path)
  return LANGUAGE_IDS[extension] ?? extension
}

const resolveFromHere = createRequire(import.meta.url).resolve

/**
 * A file of an npm dependency, as a program outside this bundle can read it: the packaged app
 * keeps dependencies in app.asar, whose unpacked twin holds those a separate process runs.
 */
function dependencyFile(pkg: string, file: string): string | undefined {
  try {
    const path = join(dirname(resolveFromHere(`${pkg}/package.json`)), file)
    return path.replace(/app\.asar([\\/])/, 'app.asar.unpacked$1')
  } catch {
    return undefined
  }
}

/**
 * The Node.js that runs the shipped servers: this process's own, except inside the desktop app,
 * whose binary does not run scripts as Node (its RunAsNode fuse is off) — there, `node` on PATH.
 */
function nodeProgram(): string | undefined {
  return process.versions.electron ? findOnPath('node') : process.execPath
}

/** The node_modules folder Atelier's dependencies are in: a shipped server's code, and what it loads. */
function dependenciesFolder(): string[] {
  const file = dependencyFile('typescript-language-server', 'package.json')
  const at = file?.lastIndexOf(`${sep}node_modules${sep}`) ?? -1
  return file && at >= 0 ? [file.slice(0, at + `${sep}node_modules`.length)] : []
}

/** A shipped server: a script of a dependency, run by Node. */
function shippedArgv(pkg: string, script: string): string[] | undefined {
  const node = nodeProgram()
  const path = dependencyFile(pkg, script)
  return node && path && existsSync(path) ? [node, path, '--stdio'] : undefined
}

function onPath(program: string, ...args: string[]): string[] | undefined {
  const found = findOnPath(program)
  return found ? [found, ...args] : undefined
}

/** A person's server: its program by path, or looked up on PATH. */
function customArgv([program = '', ...args]: readonly string[]): string[] | undefined {
  if (isAbsolute(program)) return existsSync(program) ? [program, ...args] : undefined
  return onPath(program, ...args)
}

/** Every server Atelier knows now, the person's last (they may serve endings a built-in one does too). */
export function languageServerCatalog(custom: readonly CustomLanguageServer[]): LanguageServerDefinition[] {
  const tsserver = dependencyFile('typescript', 'lib/tsserver.js')
  return [
    {
      id: 'typescript',
      name: 'TypeScript and JavaScript (typescript-language-server)',
      origin: 'shipped',
      extensions: TYPESCRIPT_EXTENSIONS,
      argv: shippedArgv('typescript-language-server', 'lib/cli.mjs'),
      readable: dependenciesFolder(),
      installHint: 'Shipped with Atelier; inside the desktop app it needs Node.js (`node`) on PATH.',
      // The project's own TypeScript is used when it has one; Atelier's otherwise.
      ...(tsserver && { initializationOptions: { tsserver: { fallbackPath: tsserver } } }),
    },
    {
      id: 'pyright',
      name: 'Python (pyright)',
      origin: 'shipped',
      extensions: ['py', 'pyi'],
      argv: shippedArgv('pyright', 'langserver.index.js'),
      readable: dependenciesFolder(),
      installHint: 'Shipped with Atelier; inside the desktop app it needs Node.js (`node`) on PATH.',
    },
    {
      id: 'gopls',
      name: 'Go (gopls)',
      origin: 'path',
      extensions: ['go'],
      argv: onPath('gopls'),
      installHint: 'go install golang.org/x/tools/gopls@latest',
    },
    {
      id: 'rust-analyzer',
      name: 'Rust (rust-analyzer)',
      origin: 'path',
      extensions: ['rs'],
      argv: onPath('rust-analyzer'),
      installHint: 'rustup component add rust-analyzer',
    },
    {
      id: 'clangd',
      name: 'C and C++ (clangd)',
      origin: 'path',
      extensions: ['c', 'h', 'cc', 'cpp', 'cxx', 'hpp', 'hh'],
      argv: onPath('clangd'),
      installHint: 'Install clangd from your package manager (apt install clangd, brew install llvm).',
    },
    ...custom.map(
      (server): LanguageServerDefinition => ({
        id: server.id,
        name: server.id,
        origin: 'custom',
        extensions: server.languages.map((language) => language.toLowerCase()),
        argv: customArgv(server.command),
        installHint: `\`${server.command[0]}\` was not found${isAbsolute(server.command[0] ?? '') ? '' : ' on PATH'}: install it, or correct the command in Settings → Code intelligence.`,
        ...(server.initializationOptions !== undefined && {
          initializationOptions: server.initializationOptions,
        }),
      }),
    ),
  ]
}
