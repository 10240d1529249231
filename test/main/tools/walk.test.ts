import { execFileSync } from 'node:child_process'
import { mkdirSync, realpathSync, renameSync, symlinkSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { LOCAL_USER } from '../../../src-main/app/create-atelier'
import { ephemeralLedger } from '../../../src-main/core/freshness-ledger'
import { loadPathPolicy } from '../../../src-main/tools/paths'
import type { ToolContext } from '../../../src-main/tools/types'
import { type WalkOptions, walk } from '../../../src-main/tools/walk'
import { useTempDirs } from '../../support/temp-dir'

/** Writes each file (folders created on the way); a name ending in / makes an empty folder. */
function writeTree(root: string, files: Record<string, string>) {
  for (const [path, content] of Object.entries(files)) {
    if (path.endsWith('/')) mkdirSync(join(root, path), { recursive: true })
    else {
      mkdirSync(dirname(join(root, path)), { recursive: true })
      writeFileSync(join(root, path), content)
    }
  }
}

function contextFor(folder: string, overrides: Partial<ToolContext> = {}): ToolContext {
  return {
    callId: 'walk',
    tool: 'walk',
    args: {},
    deadline: Number.POSITIVE_INFINITY,
    chatId: null,
    user: LOCAL_USER,
    workingDirectory: folder,
    mode: 'agent',
    restrict: true,
    signal: new AbortController().signal,
    onUpdate: () => {},
    beginCommit: () => {},
    settings: { enabled: true, parameters: {} },
    protectedPaths: [],
    ledger: ephemeralLedger(),
    ...overrides,
  }
}

/** What the walk yields, relative to the root; folders end with /. */
async function walked(
  root: string,
  options: Partial<WalkOptions> = {},
  context: ToolContext = contextFor(root),
): Promise<string[]> {
  const policy = await loadPathPolicy(context)
  const names: string[] = []
  const entries = walk(root, {
    includeDotfiles: false,
    respectGitignore: true,
    signal: new AbortController().signal,
    policy,
    ...options,
  })
  for await (const batch of entries) {
    for (const entry of batch) {
      expect(entry.path).toBe(join(root, entry.relative))
      names.push(entry.isDirectory ? `${entry.relative}/` : entry.relative)
    }
  }
  return names
}

describe('walk', () => {
  const tempDir = useTempDirs()
  const folder = () => realpathSync(tempDir())

  describe('order and kinds', () => {
    it('yields each folder’s entries in name order, folders marked, before walking into them', async () => {
      const root = folder()
      writeTree(root, { 'b.txt': '', 'a/y/z.txt': '', 'a/x.txt': '', 'c/': '', 'B.txt': '' })
      expect(await walked(root)).toEqual(['B.txt', 'a/', 'b.txt', 'c/', 'a/x.txt', 'a/y/', 'a/y/z.txt'])
    })

    it('yields only regular files with onlyFiles: no folders, links or FIFOs', async () => {
      const root = folder()
      writeTree(root, { 'a/x.txt': '', 'y.txt': '' })
      symlinkSync('y.txt', join(root, 'link.txt'))
      execFileSync('mkfifo', [join(root, 'pipe')])
      expect(await walked(root, { onlyFiles: true })).toEqual(['y.txt', 'a/x.txt'])
      expect(await walked(root)).toEqual(['a/', 'link.txt', 'pipe', 'y.txt', 'a/x.txt'])
    })

    it('goes no deeper than maxDepth', async () => {
      const root = folder()
      writeTree(root, { 'a/b/c/d.txt': '', 'top.txt': '' })
      expect(await walked(root, { maxDepth: 0 })).toEqual(['a/', 'top.txt'])
      expect(await walked(root, { maxDepth: 1 })).toEqual(['a/', 'top.txt', 'a/b/'])
    })
  })

  describe('dotfiles', () => {
    it('skips dotfiles and dot-folders unless includeDotfiles, and .git always', async () => {
      const root = folder()
      writeTree(root, { '.env': '', '.config/app.json': '', '.git/HEAD': '', 'src/.hidden': '', 'a.txt': '' })
      expect(await walked(root)).toEqual(['a.txt', 'src/'])
      expect(await walked(root, { includeDotfiles: true })).toEqual([
        '.config/',
        '.env',
        'a.txt',
        'src/',
        '.config/app.json',
        'src/.hidden',
      ])
    })
  })

  describe('symlinks and the path policy', () => {
    it('lists a symlinked folder without entering it', async () => {
      const root = folder()
      const outside = folder()
      writeTree(outside, { 'secret.txt': '' })
      writeTree(root, { 'a.txt': '' })
      symlinkSync(outside, join(root, 'out'))
      symlinkSync('/etc', join(root, 'etc'))
      const chat = contextFor(root, { mode: 'chat', workingDirectory: null })
      expect(await walked(root, {}, chat)).toEqual(['a.txt', 'etc', 'out'])
    })

    it('leaves out links whose target the policy refuses or that lead nowhere', async () => {
      const root = folder()
      const outside = folder()
      writeTree(outside, { 'secret.txt': '' })
      writeTree(root, { 'inside.txt': '' })
      symlinkSync(outside, join(root, 'out'))
      symlinkSync(join(outside, 'secret.txt'), join(root, 'secret-link.txt'))
      symlinkSync('inside.txt', join(root, 'alias.txt'))
      symlinkSync('missing.txt', join(root, 'dangling.txt'))
      symlinkSync('loop-b', join(root, 'loop-a'))
      symlinkSync('loop-a', join(root, 'loop-b'))
      expect(await walked(root)).toEqual(['alias.txt', 'inside.txt'])
      const denied = contextFor(root, {
        mode: 'chat',
        settings: { enabled: true, parameters: { deniedPaths: [outside] } },
      })
      expect(await walked(root, {}, denied)).toEqual(['alias.txt', 'inside.txt'])
    })

    it('does not list a folder swapped for a link to outside after its parent was listed', async () => {
      const root = folder()
      const outside = folder()
      writeTree(outside, { 'secret.txt': '' })
      writeTree(root, { 'swap/inside.txt': '' })
      const policy = await loadPathPolicy(contextFor(root, { mode: 'chat', workingDirectory: null }))
      const seen: string[] = []
      for await (const batch of walk(root, {
        includeDotfiles: false,
        respectGitignore: false,
        signal: new AbortController().signal,
        policy,
      })) {
        for (const entry of batch) {
          seen.push(entry.relative)
          if (entry.relative === 'swap') {
            renameSync(join(root, 'swap'), join(root, 'moved'))
            symlinkSync(outside, join(root, 'swap'))
          }
        }
      }
      expect(seen).toEqual(['swap'])
    })

    it('never enters or yields a denied folder or file inside the root', async () => {
      const root = folder()
      writeTree(root, { 'secret/key.txt': '', 'notes/private.txt': '', 'notes/public.txt': '' })
      const context = contextFor(root, {
        settings: {
          enabled: true,
          parameters: { deniedPaths: [join(root, 'secret'), join(root, 'notes/private.txt')] },
        },
      })
      expect(await walked(root, {}, context)).toEqual(['notes/', 'notes/public.txt'])
    })
  })

  describe('.gitignore', () => {
    it('skips what the root .gitignore excludes; a folder-only pattern spares a file of that name', async () => {
      const root = folder()
      writeTree(root, {
        '.gitignore': '*.log\nbuild/\n',
        'app.log': '',
        'build/out.js': '',
        'src/build': '',
        'src/main.js': '',
      })
      expect(await walked(root)).toEqual(['src/', 'src/build', 'src/main.js'])
      expect(await walked(root, { respectGitignore: false })).toEqual([
        'app.log',
        'build/',
        'src/',
        'build/out.js',
        'src/build',
        'src/main.js',
      ])
    })

    it('reads a nested .gitignore relative to its own folder, with negation', async () => {
      const root = folder()
      writeTree(root, {
        'out/a.js': '',
        'sub/.gitignore': '/out\n*.tmp\n!keep.tmp\n',
        'sub/out/b.js': '',
        'sub/deep/out/c.js': '',
        'sub/a.tmp': '',
        'sub/keep.tmp': '',
        'top.tmp': '',
      })
      expect(await walked(root, { onlyFiles: true })).toEqual([
        'top.tmp',
        'out/a.js',
        'sub/keep.tmp',
        'sub/deep/out/c.js',
      ])
    })

    it('lets a deeper .gitignore re-include a folder excluded above it', async () => {
      const root = folder()
      writeTree(root, {
        '.gitignore': 'generated/\n',
        'generated/a.js': '',
        'pkg/.gitignore': '!generated/\n',
        'pkg/generated/b.js': '',
      })
      expect(await walked(root, { onlyFiles: true })).toEqual(['pkg/generated/b.js'])
    })

    it('applies the .gitignore files of the folders above, up to the one holding .git', async () => {
      const repo = folder()
      writeTree(repo, {
        '.git/HEAD': '',
        '.gitignore': '*.tmp\npkg/dist/\n',
        'pkg/.gitignore': 'cache/\n',
        'pkg/dist/out.js': '',
        'pkg/src/cache/c.js': '',
        'pkg/src/in.js': '',
        'pkg/src/x.tmp': '',
      })
      expect(await walked(join(repo, 'pkg', 'src'))).toEqual(['in.js'])
      expect(await walked(join(repo, 'pkg'), { onlyFiles: true })).toEqual(['src/in.js'])
    })

    it('ignores the .gitignore files above the root outside a repository', async () => {
      const top = folder()
      writeTree(top, { '.gitignore': '*.tmp\n', 'pkg/x.tmp': '' })
      expect(await walked(join(top, 'pkg'))).toEqual(['x.tmp'])
    })

    it('walks a folder the repository ignores when it is the root itself, as ripgrep does', async () => {
      const repo = folder()
      writeTree(repo, {
        '.git/HEAD': '',
        '.gitignore': 'node_modules/\n',
        'node_modules/pkg/index.js': '',
        'node_modules/pkg/lib/util.js': '',
      })
      expect(await walked(repo, { onlyFiles: true })).toEqual([])
      expect(await walked(join(repo, 'node_modules', 'pkg'), { onlyFiles: true })).toEqual([
        'index.js',
        'lib/util.js',
      ])
    })
  })

  describe('stopping', () => {
    it('rejects with the abort reason when the signal is already aborted', async () => {
      const root = folder()
      writeTree(root, { 'a.txt': '' })
      const controller = new AbortController()
      controller.abort(new Error('stopped by the user'))
      await expect(walked(root, { signal: controller.signal })).rejects.toThrow('stopped by the user')
    })

    it('stops between folders once the signal is aborted', async () => {
      const root = folder()
      writeTree(root, { 'a/1.txt': '', 'b/2.txt': '', 'c/3.txt': '' })
      const controller = new AbortController()
      const policy = await loadPathPolicy(contextFor(root))
      const seen: string[] = []
      const walking = (async () => {
        const entries = walk(root, {
          includeDotfiles: false,
          respectGitignore: false,
          signal: controller.signal,
          policy,
        })
        for await (const batch of entries) {
          for (const entry of batch) {
            seen.push(entry.relative)
            if (seen.length === 1) {
              controller.abort(new Error('stopped by the user'))
              // Holds the thread past the walk's time slice, as a long synchronous search would.
              const until = performance.now() + 30
              while (performance.now() < until) {}
            }
          }
        }
      })()
      await expect(walking).rejects.toThrow('stopped by the user')
      expect(seen).toEqual(['a', 'b', 'c'])
    })
  })
})
