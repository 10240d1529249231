import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { bubblewrapArgs } from '../../../../src-main/tools/sandbox/bubblewrap'
import type { SandboxPolicy } from '../../../../src-main/tools/sandbox/policy'
import { Sandbox } from '../../../../src-main/tools/sandbox/sandbox'
import { sandboxPolicy } from '../../../../src-main/tools/sandbox/sandbox-policy'
import { seatbeltProfile } from '../../../../src-main/tools/sandbox/seatbelt'

const POLICY: SandboxPolicy = {
  writable: ['/home/ada/code/app', '/home/ada/.cache/app'],
  readOnly: ['/home/ada/code/app/.git', '/home/ada/code/app/.npmrc'],
  hidden: [
    { path: '/home/ada/.ssh', folder: true },
    { path: '/home/ada/.netrc', folder: false },
    { path: '/home/ada/.config/Atelier', folder: true },
  ],
  network: false,
  tempDir: '/private/var/folders/x/atelier-sandbox-1',
}

describe('the platforms’ sandboxes', () => {
  it('turns a policy into bubblewrap mounts: all read-only, a private /tmp, the folder writable, its protected paths and the secrets covered', () => {
    const args = bubblewrapArgs(POLICY, {
      file: '/bin/bash',
      args: ['-c', 'npm test'],
      cwd: '/home/ada/code/app',
    })
    expect(args.join(' ')).toBe(
      [
        '--ro-bind / /',
        '--dev /dev',
        '--proc /proc',
        '--tmpfs /tmp',
        '--bind /home/ada/code/app /home/ada/code/app',
        '--bind /home/ada/.cache/app /home/ada/.cache/app',
        '--ro-bind /home/ada/code/app/.git /home/ada/code/app/.git',
        '--ro-bind /home/ada/code/app/.npmrc /home/ada/code/app/.npmrc',
        '--tmpfs /home/ada/.ssh --remount-ro /home/ada/.ssh',
        '--ro-bind /dev/null /home/ada/.netrc',
        '--tmpfs /home/ada/.config/Atelier --remount-ro /home/ada/.config/Atelier',
        '--unshare-all --die-with-parent --new-session',
        '--chdir /home/ada/code/app',
        '-- /bin/bash -c npm test',
      ].join(' '),
    )
    expect(bubblewrapArgs({ ...POLICY, network: true }, { file: 'true', args: [], cwd: '/' })).toContain(
      '--share-net',
    )
  })

  it('writes a Seatbelt profile for the same policy (macOS cannot run here: the profile is the test)', () => {
    expect(seatbeltProfile(POLICY)).toMatchInlineSnapshot(`
      "(version 1)
      (allow default)
      (deny file-write* (require-not (require-any (subpath "/home/ada/code/app") (subpath "/home/ada/.cache/app") (subpath "/private/var/folders/x/atelier-sandbox-1") (literal "/dev/null") (literal "/dev/tty"))))
      (deny file-write* (subpath "/home/ada/code/app/.git") (subpath "/home/ada/code/app/.npmrc"))
      (deny file-read* file-write* (subpath "/home/ada/.ssh") (subpath "/home/ada/.netrc") (subpath "/home/ada/.config/Atelier"))
      (deny network*)
      (allow network* (remote unix-socket))
      "
    `)
    expect(seatbeltProfile({ ...POLICY, hidden: [{ path: '/a "b"', folder: true }] })).toContain(
      '(subpath "/a \\"b\\"")',
    )
  })

  describe('Sandbox.detect', () => {
    it('finds bubblewrap on Linux and starts a sandbox with it', async () => {
      const sandbox = await Sandbox.detect('linux')
      expect(sandbox.status).toMatchObject({
        available: true,
        kind: 'bubblewrap',
        executable: expect.stringMatching(/bwrap$/),
      })
    })

    it('says bubblewrap is missing, and how to install it, when it is not on PATH', async () => {
      const sandbox = await Sandbox.detect('linux', '/nonexistent')
      expect(sandbox.status).toMatchObject({
        available: false,
        kind: 'bubblewrap',
        reason: 'bubblewrap (bwrap) is not installed.',
        fix: expect.stringContaining('apt-get install bubblewrap'),
      })
      expect(() => sandbox.confine({ file: 'true', args: [], cwd: '/', env: {} }, POLICY)).toThrow(
        /not available/,
      )
    })

    it('says there is no sandbox on Windows, and keeps today’s behaviour', async () => {
      const sandbox = await Sandbox.detect('win32')
      expect(sandbox.status).toMatchObject({
        available: false,
        kind: 'none',
        reason: expect.stringContaining('Windows'),
      })
    })
  })

  it('writes the folders the person added as typed: `~/` is the home, relative or missing ones add nothing', () => {
    const home = realpathSync(mkdtempSync(join(tmpdir(), 'atelier-home-')))
    try {
      mkdirSync(join(home, 'cache'))
      const policy = sandboxPolicy({
        folder: null,
        protectedPaths: [],
        writablePaths: ['~/cache', 'cache', join(home, 'missing')],
        home,
        dataDir: join(home, 'data'),
        network: false,
        tempDir: '/tmp',
      })
      expect(policy.writable).toEqual([join(home, 'cache')])
    } finally {
      rmSync(home, { recursive: true, force: true })
    }
  })
})
