/**
 * Linux: a command confined by bubblewrap (`bwrap`). The whole file system read-only, a private
 * `/tmp`, the writable folders bound back writable, the protected paths inside them bound again
 * read-only, the secrets covered by an empty folder or file; its own user, PID, IPC, UTS and
 * network namespaces (the network shared only when the policy allows it); it dies with Atelier and
 * runs in a session of its own, so it cannot push keys into the person's terminal (TIOCSTI).
 */
import type { SandboxCommand, SandboxPolicy } from './policy'

/** The arguments that make `bwrap` run `command` under `policy`. Order matters: later mounts cover earlier ones. */
export function bubblewrapArgs(
  policy: SandboxPolicy,
  command: Pick<SandboxCommand, 'file' | 'args' | 'cwd'>,
) {
  return [
    ...['--ro-bind', '/', '/'],
    ...['--dev', '/dev'],
    ...['--proc', '/proc'],
    // Before the folders: a folder that lives under /tmp is bound back over it.
    ...['--tmpfs', '/tmp'],
    ...policy.writable.flatMap((path) => ['--bind', path, path]),
    ...policy.readOnly.flatMap((path) => ['--ro-bind', path, path]),
    ...policy.hidden.flatMap(({ path, folder }) =>
      folder ? ['--tmpfs', path, '--remount-ro', path] : ['--ro-bind', '/dev/null', path],
    ),
    '--unshare-all',
    ...(policy.network ? ['--share-net'] : []),
    '--die-with-parent',
    '--new-session',
    ...['--chdir', command.cwd],
    '--',
    command.file,
    ...command.args,
  ]
}
