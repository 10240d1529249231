import { homedir } from 'node:os'
import { join, resolve } from 'node:path'
import { describe, expect, it, vi } from 'vitest'
import { Language, Parser } from 'web-tree-sitter'
import {
  type ParsedShellCommand,
  parseShellCommand,
  type ShellSubCommand,
} from '../../../src-main/approvals/shell-command'

// Installed before any parse in this file, so the counts below are all the loading there is.
const parserInit = vi.spyOn(Parser, 'init')
const languageLoad = vi.spyOn(Language, 'load')

const CWD = resolve('/base/proj')
const HOME = homedir()
const inCwd = (...parts: string[]) => join(CWD, ...parts)

interface Row {
  source: string
  /** The argv of every sub-command, in order. */
  argv: string[][]
  /** Other fields to check, by sub-command index. */
  fields?: Record<number, Partial<ShellSubCommand>>
  error?: true
}

const rows: Row[] = [
  // Chains, pipes and their separators
  { source: 'git status', argv: [['git', 'status']], fields: { 0: { wrappers: [], paths: [], cwd: CWD } } },
  {
    source: 'git status && rm -rf x',
    argv: [
      ['git', 'status'],
      ['rm', '-rf', 'x'],
    ],
    fields: { 1: { text: 'rm -rf x', paths: [inCwd('x')] } },
  },
  {
    source: 'git status; rm x',
    argv: [
      ['git', 'status'],
      ['rm', 'x'],
    ],
  },
  {
    source: 'git status || rm x',
    argv: [
      ['git', 'status'],
      ['rm', 'x'],
    ],
  },
  {
    source: 'git status\nrm x',
    argv: [
      ['git', 'status'],
      ['rm', 'x'],
    ],
  },
  { source: 'ls | grep foo', argv: [['ls'], ['grep', 'foo']], fields: { 1: { paths: [] } } },
  { source: 'cat f | sh', argv: [['cat', 'f'], ['sh']] },

  // Substitutions: the inner command is listed after the outer, which is marked
  {
    source: 'echo $(rm x)',
    argv: [
      ['echo', '$(rm x)'],
      ['rm', 'x'],
    ],
    fields: { 0: { substitution: true }, 1: { substitution: false, paths: [inCwd('x')] } },
  },
  {
    source: 'echo `rm x`',
    argv: [
      ['echo', '`rm x`'],
      ['rm', 'x'],
    ],
    fields: { 0: { substitution: true } },
  },
  {
    source: 'diff <(ls a) <(ls b)',
    argv: [
      ['diff', '<(ls a)', '<(ls b)'],
      ['ls', 'a'],
      ['ls', 'b'],
    ],
    fields: { 0: { substitution: true, paths: [] }, 2: { paths: [inCwd('b')] } },
  },
  {
    source: '$(echo rm) x',
    argv: [
      ['$(echo rm)', 'x'],
      ['echo', 'rm'],
    ],
    fields: { 0: { substitution: true } },
  },
  { source: 'X=$(rm x)', argv: [['rm', 'x']] },
  {
    source: 'export A=$(rm q) B',
    argv: [
      ['export', 'A=$(rm q)', 'B'],
      ['rm', 'q'],
    ],
  },

  // Strings run by a shell or eval are parsed in their turn
  { source: 'bash -c "rm x"', argv: [['rm', 'x']], fields: { 0: { text: 'rm x', paths: [inCwd('x')] } } },
  {
    source: "sh -c 'git status && rm y'",
    argv: [
      ['git', 'status'],
      ['rm', 'y'],
    ],
  },
  { source: 'bash -lc "rm x"', argv: [['rm', 'x']] },
  { source: "sh -ec 'rm x'", argv: [['rm', 'x']] },
  { source: 'bash -o pipefail -c "rm x | cat"', argv: [['rm', 'x'], ['cat']] },
  { source: 'bash -c "$CMD"', argv: [['bash', '-c', '"$CMD"']], error: true },
  { source: 'eval "rm x"', argv: [['rm', 'x']] },
  { source: 'eval rm "$X"', argv: [['eval', 'rm', '"$X"']], error: true },
  {
    source: 'sudo bash -c "rm x" > out',
    argv: [['rm', 'x']],
    fields: { 0: { wrappers: ['sudo'], redirects: ['> out'], paths: [inCwd('x'), inCwd('out')] } },
  },
  { source: 'bash script.sh', argv: [['bash', 'script.sh']] },

  // Wrappers are stripped, and named
  { source: 'sudo rm x', argv: [['rm', 'x']], fields: { 0: { wrappers: ['sudo'], text: 'sudo rm x' } } },
  { source: 'sudo -u root rm x', argv: [['rm', 'x']], fields: { 0: { wrappers: ['sudo'] } } },
  { source: 'sudo -E -u root -- rm x', argv: [['rm', 'x']], fields: { 0: { wrappers: ['sudo'] } } },
  {
    source: 'sudo env X=1 timeout 5 rm x',
    argv: [['rm', 'x']],
    fields: { 0: { wrappers: ['sudo', 'env', 'timeout'] } },
  },
  {
    source: 'env FOO=1 BAR=2 rm x',
    argv: [['rm', 'x']],
    fields: { 0: { wrappers: ['env'], assignments: ['FOO', 'BAR'] } },
  },
  { source: 'env -i -u HOME rm x', argv: [['rm', 'x']], fields: { 0: { wrappers: ['env'] } } },
  { source: 'timeout 5 rm x', argv: [['rm', 'x']], fields: { 0: { wrappers: ['timeout'] } } },
  { source: 'timeout -s KILL 5 rm x', argv: [['rm', 'x']], fields: { 0: { wrappers: ['timeout'] } } },
  { source: 'nice -n 10 rm x', argv: [['rm', 'x']], fields: { 0: { wrappers: ['nice'] } } },
  { source: 'nohup rm x &', argv: [['rm', 'x']], fields: { 0: { wrappers: ['nohup'] } } },
  {
    source: "find . -name '*.tmp' | xargs rm",
    argv: [['find', '.', '-name', '*.tmp'], ['rm']],
    fields: { 0: { paths: [CWD] }, 1: { wrappers: ['xargs'] } },
  },
  { source: 'xargs -I{} rm {}', argv: [['rm', '{}']], fields: { 0: { wrappers: ['xargs'], paths: [null] } } },
  { source: 'time npm test', argv: [['npm', 'test']], fields: { 0: { wrappers: ['time'] } } },
  { source: 'command rm x', argv: [['rm', 'x']], fields: { 0: { wrappers: ['command'] } } },
  { source: 'command -v git', argv: [['command', '-v', 'git']], fields: { 0: { wrappers: [] } } },
  {
    source: 'exec stdbuf -oL ionice -c 3 rm x',
    argv: [['rm', 'x']],
    fields: { 0: { wrappers: ['exec', 'stdbuf', 'ionice'] } },
  },
  { source: '/usr/bin/sudo rm x', argv: [['rm', 'x']], fields: { 0: { wrappers: ['sudo'] } } },
  { source: 'sudo', argv: [['sudo']], fields: { 0: { wrappers: [] } } },
  { source: 'sudo -u', argv: [['sudo', '-u']], fields: { 0: { wrappers: [] } } },

  // A wrapper's own options are read one by one: some run, write or move the command
  {
    source: "env -S'touch pwned' npm run test",
    argv: [['touch', 'pwned', 'npm', 'run', 'test']],
    fields: { 0: { wrappers: ['env'], text: 'env touch pwned npm run test' } },
  },
  { source: "env -S 'rm x' y", argv: [['rm', 'x', 'y']] },
  { source: "env --split-string='rm x' y", argv: [['rm', 'x', 'y']] },
  { source: "env -iS'sudo rm x'", argv: [['rm', 'x']], fields: { 0: { wrappers: ['env', 'sudo'] } } },
  {
    source: "sudo env -S'X=1 rm x'",
    argv: [['rm', 'x']],
    fields: { 0: { wrappers: ['sudo', 'env'], assignments: ['X'] } },
  },
  { source: 'env -S"rm $HOME" x', argv: [['x']], error: true },
  {
    source: 'env --chdir="$D" rm x',
    argv: [['rm', 'x']],
    fields: { 0: { wrappers: ['env'], cwd: null, paths: [null] } },
  },
  { source: "env -S'true; rm x' y", argv: [['y']], error: true },
  {
    source: 'env -C /tmp rm x',
    argv: [['rm', 'x']],
    fields: { 0: { cwd: '/tmp', paths: ['/tmp/x'] } },
  },
  { source: 'env --chdir=sub rm x', argv: [['rm', 'x']], fields: { 0: { paths: [inCwd('sub', 'x')] } } },
  { source: 'sudo -D /etc rm passwd', argv: [['rm', 'passwd']], fields: { 0: { paths: ['/etc/passwd'] } } },
  {
    source: 'time -o log git status',
    argv: [['git', 'status']],
    fields: {
      0: { wrappers: ['time'], redirects: ['time -o log'], paths: [inCwd('log')], written: [inCwd('log')] },
    },
  },
  {
    source: "/usr/bin/time --output=.git/config --format='x' git status",
    argv: [['git', 'status']],
    fields: { 0: { redirects: ['time --output=.git/config'], written: [inCwd('.git', 'config')] } },
  },
  { source: 'time -p npm test', argv: [['npm', 'test']], fields: { 0: { redirects: [] } } },
  { source: 'xargs -a list rm', argv: [['rm']], fields: { 0: { paths: [inCwd('list')], redirects: [] } } },
  { source: 'xargs -0 -n1 -i{} rm {}', argv: [['rm', '{}']], fields: { 0: { wrappers: ['xargs'] } } },
  { source: 'nice -10 rm x', argv: [['rm', 'x']], fields: { 0: { wrappers: ['nice'] } } },
  { source: 'sudo -l rm x', argv: [['sudo', '-l', 'rm', 'x']], fields: { 0: { wrappers: [] } } },
  { source: 'ionice -p 123', argv: [['ionice', '-p', '123']], fields: { 0: { wrappers: [] } } },
  { source: 'sudo --frobnicate rm x', argv: [['rm', 'x']], error: true },
  { source: 'timeout -Z 5 rm x', argv: [['rm', 'x']], error: true },
  { source: 'env "$OPTS" rm x', argv: [['"$OPTS"', 'rm', 'x']], error: true },
  // Only a cd in this shell moves it: under sudo or env it moves a process that ends at once.
  {
    source: 'builtin cd sub && rm x',
    argv: [
      ['cd', 'sub'],
      ['rm', 'x'],
    ],
    fields: { 1: { paths: [inCwd('sub', 'x')] } },
  },
  {
    source: 'sudo cd /etc && rm passwd',
    argv: [
      ['cd', '/etc'],
      ['rm', 'passwd'],
    ],
    fields: { 1: { cwd: CWD, paths: [inCwd('passwd')] } },
  },

  // cd is followed along a sequence, but not out of a subshell, a pipe or a substitution
  {
    source: 'cd .. && rm x',
    argv: [
      ['cd', '..'],
      ['rm', 'x'],
    ],
    fields: { 0: { cwd: CWD, paths: ['/base'] }, 1: { cwd: '/base', paths: ['/base/x'] } },
  },
  {
    source: '(cd sub && rm x); rm y',
    argv: [
      ['cd', 'sub'],
      ['rm', 'x'],
      ['rm', 'y'],
    ],
    fields: { 1: { cwd: inCwd('sub'), paths: [inCwd('sub', 'x')] }, 2: { cwd: CWD, paths: [inCwd('y')] } },
  },
  {
    source: 'cd sub; cd ..; cat ./f',
    argv: [
      ['cd', 'sub'],
      ['cd', '..'],
      ['cat', './f'],
    ],
    fields: { 1: { cwd: inCwd('sub') }, 2: { cwd: CWD, paths: [inCwd('f')] } },
  },
  {
    source: 'cd $HOME && rm x',
    argv: [
      ['cd', '$HOME'],
      ['rm', 'x'],
    ],
    fields: { 0: { paths: [null] }, 1: { cwd: null, paths: [null] } },
  },
  { source: 'cd x | cat; rm y', argv: [['cd', 'x'], ['cat'], ['rm', 'y']], fields: { 2: { cwd: CWD } } },
  {
    source: 'echo $(cd /tmp) && rm x',
    argv: [
      ['echo', '$(cd /tmp)'],
      ['cd', '/tmp'],
      ['rm', 'x'],
    ],
    fields: { 2: { cwd: CWD } },
  },
  {
    source: 'bash -c "cd /tmp"; rm x',
    argv: [
      ['cd', '/tmp'],
      ['rm', 'x'],
    ],
    fields: { 1: { cwd: CWD } },
  },
  {
    source: 'eval "cd /tmp"; rm x',
    argv: [
      ['cd', '/tmp'],
      ['rm', 'x'],
    ],
    fields: { 1: { cwd: '/tmp', paths: ['/tmp/x'] } },
  },
  { source: 'cd; ls', argv: [['cd'], ['ls']], fields: { 1: { cwd: HOME } } },
  { source: 'cd -; ls', argv: [['cd', '-'], ['ls']], fields: { 0: { paths: [] }, 1: { cwd: null } } },
  {
    source: 'pushd sub && popd && ls',
    argv: [['pushd', 'sub'], ['popd'], ['ls']],
    fields: { 1: { cwd: inCwd('sub') }, 2: { cwd: null } },
  },

  // Redirects
  {
    source: 'git status > out.txt',
    argv: [['git', 'status']],
    fields: { 0: { redirects: ['> out.txt'], paths: [inCwd('out.txt')], text: 'git status > out.txt' } },
  },
  {
    source: 'git status >> out.txt',
    argv: [['git', 'status']],
    fields: { 0: { redirects: ['>> out.txt'] } },
  },
  { source: 'git status 2>&1', argv: [['git', 'status']], fields: { 0: { redirects: [], paths: [] } } },
  { source: 'git status >&2 2>&-', argv: [['git', 'status']], fields: { 0: { redirects: [], paths: [] } } },
  {
    source: 'git status > /dev/null',
    argv: [['git', 'status']],
    fields: { 0: { redirects: [], paths: [] } },
  },
  { source: 'make &> build.log', argv: [['make']], fields: { 0: { redirects: ['&> build.log'] } } },
  { source: 'cat < in.txt', argv: [['cat']], fields: { 0: { redirects: [], paths: [inCwd('in.txt')] } } },
  {
    source: 'ls | grep x > out',
    argv: [['ls'], ['grep', 'x']],
    fields: { 0: { redirects: [] }, 1: { redirects: ['> out'], text: 'grep x > out' } },
  },
  {
    source: 'cd sub && ls > out',
    argv: [['cd', 'sub'], ['ls']],
    fields: { 1: { paths: [inCwd('sub', 'out')] } },
  },
  { source: 'echo > out hi', argv: [['echo', 'hi']], fields: { 0: { redirects: ['> out'] } } },
  { source: '> out.txt', argv: [[]], fields: { 0: { redirects: ['> out.txt'], paths: [inCwd('out.txt')] } } },

  // Heredocs and here-strings: the body is data, but an unquoted body's $(…) does run (and asks:
  // what the grammar sees in a heredoc body is not all bash runs, see below)
  {
    source: 'cat <<EOF\nhello $(rm x)\nEOF',
    argv: [['cat'], ['rm', 'x']],
    fields: { 0: { substitution: true } },
    error: true,
  },
  { source: "cat <<'EOF'\nhello $(rm x)\nEOF", argv: [['cat']], fields: { 0: { substitution: false } } },
  { source: 'cat <<EOF | grep x\nrm y\nEOF\nrm z', argv: [['cat'], ['grep', 'x'], ['rm', 'z']] },
  { source: 'cat <<< "hi there"', argv: [['cat']], fields: { 0: { paths: [], redirects: [] } } },
  // Backticks in an unquoted heredoc body run, but the grammar does not see them: they ask
  { source: 'git status <<EOF\n`touch x`\nEOF', argv: [['git', 'status']], error: true },
  { source: "cat <<'EOF'\n`touch x`\nEOF", argv: [['cat']] },
  { source: 'cat <<\\EOF\n`touch x`\nEOF', argv: [['cat']] },
  { source: 'cat <<EOF\n\\`not run\\`\nEOF', argv: [['cat']] },

  // Text bash evaluates later asks: arithmetic on names (each name's value is evaluated in turn, and
  // `a[$(cmd)]` there runs cmd), ${!x}, ${x@P}, $_
  { source: 'git status $((_))', argv: [['git', 'status', '$((_))']], error: true },
  { source: 'echo $((x + 1)) $[x]', argv: [['echo', '$((x + 1))', '$[x]']], error: true },
  {
    source: 'echo $((1 + 2 * 3)) $(( $# - 1 )) $[4]',
    argv: [['echo', '$((1 + 2 * 3))', '$(( $# - 1 ))', '$[4]']],
  },
  { source: 'echo ${!_} ${!x}', argv: [['echo', '${!_}', '${!x}']], error: true },
  { source: 'echo ${_@P}', argv: [['echo', '${_@P}']], error: true },
  { source: 'echo "${x@E}"', argv: [['echo', '"${x@E}"']], error: true },
  { source: 'ls; ls "$_"', argv: [['ls'], ['ls', '"$_"']], error: true },
  { source: 'for x in a; do echo $((x)); done', argv: [['echo', '$((x))']], error: true },
  { source: '((x + 1))', argv: [], error: true },
  { source: '((1 + 1)) && ls', argv: [['ls']] },
  { source: 'for ((i = 0; i < 3; i++)); do ls; done', argv: [['ls']], error: true },
  { source: 'let x+1', argv: [['let', 'x+1']], error: true },
  { source: '[[ $x -eq 1 ]] && ls', argv: [['ls']], error: true },
  { source: '[[ $? -eq 0 && -n $x ]] && ls', argv: [['ls']] },
  { source: '[[ -v a[i] ]] && ls', argv: [['ls']], error: true },
  { source: 'echo ${a[i]}', argv: [['echo', '${a[i]}']], error: true },
  { source: 'a[i]=1', argv: [], error: true },
  { source: 'echo ${a[0]} ${a[@]}', argv: [['echo', '${a[0]}', '${a[@]}']] },
  { source: 'echo ${s:x:1}', argv: [['echo', '${s:x:1}']], error: true },
  { source: 'echo ${s:1:2} ${s: -1} ${s:-x}', argv: [['echo', '${s:1:2}', '${s: -1}', '${s:-x}']] },
  { source: 'declare -i n; n=x', argv: [['declare', '-i', 'n']], error: true },
  { source: 'local -n ref=x', argv: [['local', '-n', 'ref=x']], error: true },
  // A for variable is set like an assignment: it can be PATH
  {
    source: 'for PATH in .; do git status; done; ls',
    argv: [['git', 'status'], ['ls']],
    fields: { 0: { assignments: ['PATH'] }, 1: { assignments: ['PATH'] } },
  },
  // Brace expansion makes other words than the one written
  { source: 'cat {/etc/passwd,x}', argv: [['cat', '{/etc/passwd,x}']], fields: { 0: { paths: [null] } } },
  {
    source: "cat a{1..3} {'b,c'}",
    argv: [['cat', 'a{1..3}', '{b,c}']],
    fields: { 0: { paths: [null, inCwd('{b,c}')] } },
  },

  // Words: quotes removed, escapes resolved, assignments dropped
  {
    source: 'FOO=1 npm test',
    argv: [['npm', 'test']],
    fields: { 0: { text: 'FOO=1 npm test', assignments: ['FOO'] } },
  },
  { source: 'X=1', argv: [] },
  // An assignment on its own line holds for the rest of the shell, not for a subshell's outside.
  {
    source: 'PATH=.:$PATH; git status',
    argv: [['git', 'status']],
    fields: { 0: { assignments: ['PATH'] } },
  },
  {
    source: 'export LD_PRELOAD=./x.so && ls; (A=1; ls); ls',
    argv: [['export', 'LD_PRELOAD=./x.so'], ['ls'], ['ls'], ['ls']],
    fields: {
      0: { assignments: [] },
      1: { assignments: ['LD_PRELOAD'] },
      2: { assignments: ['LD_PRELOAD', 'A'] },
      3: { assignments: ['LD_PRELOAD'] },
    },
  },
  { source: 'git status', argv: [['git', 'status']], fields: { 0: { assignments: [] } } },
  {
    source: 'GIT_DIR=x bash -c "git status"',
    argv: [['git', 'status']],
    fields: { 0: { assignments: ['GIT_DIR'] } },
  },
  { source: 'git commit -m "fix: a && b"', argv: [['git', 'commit', '-m', 'fix: a && b']] },
  { source: "echo 'a;b'", argv: [['echo', 'a;b']] },
  { source: 'echo "it\'s"', argv: [['echo', "it's"]] },
  { source: 'echo "say \\"hi\\" \\$x"', argv: [['echo', 'say "hi" $x']] },
  { source: "echo $'a\\tb' a\\ b", argv: [['echo', 'a\tb', 'a b']] },
  {
    source: "\\rm x; r''m y",
    argv: [
      ['rm', 'x'],
      ['rm', 'y'],
    ],
  },
  { source: 'git-lfs pull', argv: [['git-lfs', 'pull']] },
  { source: 'npm run test', argv: [['npm', 'run', 'test']] },
  { source: 'npm test -- --watch', argv: [['npm', 'test', '--', '--watch']] },

  // Compound commands and functions
  { source: 'for f in *.ts; do rm "$f"; done', argv: [['rm', '"$f"']], fields: { 0: { paths: [null] } } },
  { source: 'if true; then rm x; fi', argv: [['true'], ['rm', 'x']] },
  {
    source: 'while read l; do rm "$l"; done < list',
    argv: [
      ['read', 'l'],
      ['rm', '"$l"'],
    ],
  },
  {
    source: 'case $x in a) rm a;; *) rm b;; esac',
    argv: [
      ['rm', 'a'],
      ['rm', 'b'],
    ],
  },
  { source: 'f() { rm x; }; f', argv: [['rm', 'x'], ['f']] },
  { source: '{ rm x; }', argv: [['rm', 'x']] },
  {
    source: '{ rm x; echo y; } > out',
    argv: [
      ['rm', 'x'],
      ['echo', 'y'],
    ],
    fields: { 1: { redirects: ['> out'] } },
  },

  // find's actions are commands too
  {
    source: 'find . -exec rm {} \\;',
    argv: [
      ['find', '.', '-exec', 'rm', '{}', ';'],
      ['rm', '{}'],
    ],
    fields: { 0: { paths: [CWD] }, 1: { text: 'rm {}', paths: [null], cwd: CWD } },
  },
  {
    source: 'find . -execdir sh -c \'rm "$1"\' _ {} +',
    argv: [
      ['find', '.', '-execdir', 'sh', '-c', 'rm "$1"', '_', '{}', '+'],
      ['rm', '"$1"'],
    ],
    fields: { 1: { cwd: null } },
  },

  // Paths
  { source: 'rm ~/x', argv: [['rm', '~/x']], fields: { 0: { paths: [join(HOME, 'x')] } } },
  { source: "rm '~/x'", argv: [['rm', '~/x']], fields: { 0: { paths: [inCwd('~', 'x')] } } },
  { source: 'cp a /etc/b', argv: [['cp', 'a', '/etc/b']], fields: { 0: { paths: [inCwd('a'), '/etc/b'] } } },
  { source: 'rm src/*.ts', argv: [['rm', 'src/*.ts']], fields: { 0: { paths: [inCwd('src', '*.ts')] } } },
  { source: 'rm -- -f', argv: [['rm', '--', '-f']], fields: { 0: { paths: [inCwd('-f')] } } },
  {
    source: 'grep -r foo ../other',
    argv: [['grep', '-r', 'foo', '../other']],
    fields: { 0: { paths: ['/base/other'] } },
  },
  { source: 'chmod 755 x', argv: [['chmod', '755', 'x']], fields: { 0: { paths: [inCwd('x')] } } },
  {
    source: 'git -C ../other status',
    argv: [['git', '-C', '../other', 'status']],
    fields: { 0: { paths: ['/base/other'] } },
  },
  { source: 'git push origin main', argv: [['git', 'push', 'origin', 'main']], fields: { 0: { paths: [] } } },
  {
    source: 'curl https://example.com/a -o /tmp/z --config=./c',
    argv: [['curl', 'https://example.com/a', '-o', '/tmp/z', '--config=./c']],
    fields: { 0: { paths: ['/tmp/z', inCwd('c')] } },
  },
  {
    source: 'dd if=in.img of=/dev/sda bs=1M',
    argv: [['dd', 'if=in.img', 'of=/dev/sda', 'bs=1M']],
    fields: { 0: { paths: [inCwd('in.img'), '/dev/sda'] } },
  },
  {
    source: 'scp host:/etc/x ./y',
    argv: [['scp', 'host:/etc/x', './y']],
    fields: { 0: { paths: [inCwd('y')] } },
  },

  // Not valid shell: an error, with whatever could be found
  { source: 'echo "unterminated', argv: [['echo']], error: true },
  { source: 'ls &&', argv: [['ls']], error: true },
  { source: '&& rm x', argv: [['rm', 'x']], error: true },
  { source: 'rm x; )', argv: [['rm', 'x']], error: true },
]

/** A command's options that write, run or load code, and the files they write (of its first sub-command, or `at`). */
interface RiskyRow {
  source: string
  options: string[]
  written?: (string | null)[]
  at?: number
}
const UNKNOWN = (word: string) => `${word} (known only when it runs)`

const riskyRows: RiskyRow[] = [
  // git: options anywhere, before the subcommand, and per subcommand
  { source: 'git status', options: [] },
  {
    source: 'git log --output=.git/config',
    options: ['--output=.git/config'],
    written: [inCwd('.git', 'config')],
  },
  { source: 'git log --out .git/config', options: ['--out .git/config'], written: [inCwd('.git', 'config')] },
  { source: 'git diff --output-directory=out', options: ['--output-directory=out'], written: [inCwd('out')] },
  { source: 'git grep --open-files-in-pager=sh -e x', options: ['--open-files-in-pager=sh'] },
  { source: 'git grep -nOsh x', options: ['-nOsh'] },
  { source: 'git grep -o x', options: [] },
  { source: 'git ls-files -o', options: [] },
  { source: 'git switch -c feature', options: [] },
  { source: 'git -c core.pager=sh log', options: ['-c core.pager=sh'] },
  { source: 'git --config-env=core.pager=X log', options: ['--config-env=core.pager=X'] },
  { source: 'git --exec-path=. status', options: ['--exec-path=.'] },
  { source: 'git --git-dir=evil --work-tree=. status', options: ['--git-dir=evil', '--work-tree=.'] },
  { source: 'git -C sub status', options: [] },
  { source: 'git fetch --upload-pack=./x origin', options: ['--upload-pack=./x'] },
  { source: 'git push --receive-pack=./x origin', options: ['--receive-pack=./x'] },
  { source: "git rebase -x 'make test' main", options: ["-x 'make test'"] },
  { source: 'git rebase --exec=x main', options: ['--exec=x'] },
  { source: 'git diff --ext-diff', options: ['--ext-diff'] },
  { source: 'git log -p --textconv', options: ['--textconv'] },
  { source: 'git diff --text --tex', options: ['--tex'] },
  { source: 'git difftool -x ./x', options: ['-x ./x'] },
  { source: 'git format-patch -o out HEAD~1', options: ['-o out'], written: [inCwd('out')] },
  { source: 'git archive -o a.tar HEAD', options: ['-o a.tar'], written: [inCwd('a.tar')] },
  { source: 'git clone -u ./x repo', options: ['-u ./x'] },
  { source: 'git clone -c core.fsmonitor=./x repo', options: ['-c core.fsmonitor=./x'] },
  { source: 'git init --template=t', options: ['--template=t'] },
  // …and, in a program with such options, words bash fills in when it runs
  { source: 'git log $X', options: [UNKNOWN('$X')] },
  { source: 'git log *', options: [UNKNOWN('*')] },
  { source: 'git log {--output=x,y}', options: [UNKNOWN('{--output=x,y}')] },
  { source: '$G log', options: [] },
  { source: 'git $SUB', options: [UNKNOWN('$SUB')] },
  { source: 'git diff -- "$f"', options: [] },
  { source: 'git commit -m "$(date)"', options: [] },
  { source: 'git log --format="$F"', options: [] },
  { source: "git status 'a[$(touch x)]'", options: [] },
  { source: 'echo --output=x | xargs git log', options: ['the words xargs adds from its input'], at: 1 },
  // sed: -i writes its files; w, e, r and s///w, s///e in a script
  { source: 'sed -n 1p f', options: [] },
  { source: "sed 's/e/w/g;/w/d' f", options: [] },
  { source: "sed -E -e '1,/x/{s|a|b|2;p}' -e '$a end' f", options: [] },
  { source: 'sed -i s/a/b/ f g', options: ['-i'], written: [inCwd('f'), inCwd('g')] },
  { source: 'sed -i.bak -e s/a/b/ f', options: ['-i.bak'], written: [inCwd('f')] },
  { source: "sed 's/a/b/w out' f", options: ["'s/a/b/w out'"] },
  { source: "sed -e 's/x/y/e' f", options: ["'s/x/y/e'"] },
  { source: "sed '1e touch x' f", options: ["'1e touch x'"] },
  { source: "sed '/x/w out' f", options: ["'/x/w out'"] },
  { source: "sed '1r /etc/passwd' f", options: ["'1r /etc/passwd'"] },
  { source: 'sed -f script.sed f', options: ['-f script.sed'] },
  { source: 'sed "$S" f', options: [UNKNOWN('"$S"')] },
  { source: 'sed -e "$S" f', options: [UNKNOWN('"$S"')] },
  { source: 'gawk -e "$P" f', options: [UNKNOWN('"$P"')] },
  { source: 'awk "$P" f', options: [UNKNOWN('"$P"')] },
  // awk: system(), pipes and output redirects in its program; program files and extensions
  { source: "awk '{print $1}' f", options: [] },
  { source: `awk '{system("touch x")}' f`, options: [`'{system("touch x")}'`] },
  { source: `awk '{print | "sh"}' f`, options: [`'{print | "sh"}'`] },
  { source: `gawk '{print > "out"}' f`, options: [`'{print > "out"}'`] },
  { source: 'awk -f prog.awk f', options: ['-f prog.awk'] },
  { source: 'gawk -l ./lib -e 1 f', options: ['-l ./lib'] },
  // find's actions; rg's preprocessor; tar's programs; sort's output; npm's shells; curl's files
  { source: "find . -name '*.ts'", options: [] },
  { source: 'find . -delete', options: ['-delete'] },
  { source: 'find . -fprint out', options: ['-fprint out'], written: [inCwd('out')] },
  { source: 'find . -execdir ls \\;', options: ['-execdir'] },
  { source: 'rg --pre=sh x', options: ['--pre=sh'] },
  { source: "rg --pre-glob '*.gz' -e x", options: [] },
  { source: 'rg --hostname-bin=./x y', options: ['--hostname-bin=./x'] },
  { source: 'tar --to-command=sh -xf a.tar', options: ['--to-command=sh'] },
  { source: "tar -I 'sh -c x' -cf a.tar .", options: ["-I 'sh -c x'"] },
  { source: 'tar xIf ./x a.tar', options: ['-xIf'] },
  { source: 'tar -tzf a.tar --checkpoint=10', options: [] },
  { source: 'sort -o out f', options: ['-o out'], written: [inCwd('out')] },
  { source: 'sort --compress-program=sh f', options: ['--compress-program=sh'] },
  { source: 'npm run test --script-shell=./evil.sh', options: ['--script-shell=./evil.sh'] },
  { source: 'npm --node-options=--require=./x.cjs test', options: ['--node-options=--require=./x.cjs'] },
  { source: 'npm run test -- --watch', options: [] },
  { source: 'npm install --global x', options: [] },
  { source: 'curl -sSLo out https://x', options: ['-sSLo out'], written: [inCwd('out')] },
  { source: 'curl -o - https://x', options: [] },
  { source: 'curl -fsSL https://x', options: [] },
  { source: 'curl -K conf https://x', options: ['-K conf'] },
  { source: "rsync -e 'sh -c x' a b:", options: ["-e 'sh -c x'"] },
  { source: 'scp -o ProxyCommand=x a b:', options: ['-o ProxyCommand=x'] },
  { source: "zip -TT 'sh -c x' a.zip f", options: ["-TT 'sh -c x'"] },
]

describe('parseShellCommand', () => {
  describe('loading', () => {
    it('initialises the parser once, however many parses ask for it at the same time', async () => {
      const [first, second] = await Promise.all([parseShellCommand('ls', CWD), parseShellCommand('pwd', CWD)])
      await parseShellCommand('git status', CWD)
      expect(first.commands[0]?.argv).toEqual(['ls'])
      expect(second.commands[0]?.argv).toEqual(['pwd'])
      expect(parserInit).toHaveBeenCalledTimes(1)
      expect(languageLoad).toHaveBeenCalledTimes(1)
    })
  })

  describe('commands', () => {
    it.each(rows)('reads $source', async ({ source, argv, fields, error }) => {
      const parsed = await parseShellCommand(source, CWD)
      expect(parsed.commands.map((command) => command.argv)).toEqual(argv)
      for (const [index, expected] of Object.entries(fields ?? {})) {
        expect(parsed.commands[Number(index)]).toMatchObject(expected)
      }
      if (error) expect(parsed.error).toEqual(expect.any(String))
      else expect(parsed.error).toBeUndefined()
    })
  })

  describe('options that write, run or load code', () => {
    it.each(riskyRows)('weighs $source', async ({ source, options, written = [], at = 0 }) => {
      const { commands } = await parseShellCommand(source, CWD)
      expect(commands[at]).toMatchObject({ riskyOptions: options, written })
    })
  })

  describe('nesting', () => {
    const quote = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`
    const nested = (depth: number): string => (depth === 0 ? 'rm x' : `eval ${quote(nested(depth - 1))}`)

    it('reads eval strings five deep', async () => {
      const parsed = await parseShellCommand(nested(5), CWD)
      expect(parsed.commands.map((command) => command.argv)).toEqual([['rm', 'x']])
      expect(parsed.error).toBeUndefined()
    })

    it('asks past five levels rather than hiding the command', async () => {
      const parsed = await parseShellCommand(nested(6), CWD)
      expect(parsed.error).toMatch(/levels deep/)
      expect(parsed.commands.map((command) => command.argv)).toEqual([['eval', 'rm x']])
    })
  })

  describe('bad input', () => {
    const inputs = ['', '   ', ')))', '$(', '`', '<<EOF', 'a\u0000b', "'", 'if then fi', '((', '${', '\\']
    it.each(inputs)('resolves for %j', async (source) => {
      const parsed = await parseShellCommand(source, CWD)
      expect(Array.isArray(parsed.commands)).toBe(true)
    })

    it('resolves for a 100,000-character line', async () => {
      const parsed = await parseShellCommand(`echo ${'x'.repeat(100_000)} && rm y`, CWD)
      expect(parsed.commands.map((command) => command.argv[0])).toEqual(['echo', 'rm'])
    })
  })

  describe('repeated parses', () => {
    it('gives the same answer 1,000 times over', async () => {
      const source = 'cd packages/app && npm run build -- --mode=production 2>&1 | tee ../build.log'
      const started = performance.now()
      const results: ParsedShellCommand[] = []
      for (let run = 0; run < 1000; run++) results.push(await parseShellCommand(source, CWD))
      if (process.env.SHELL_PARSE_TIMING) {
        console.log(`1,000 parses: ${((performance.now() - started) / 1000).toFixed(3)} ms each`)
      }
      expect(results.every((result) => JSON.stringify(result) === JSON.stringify(results[0]))).toBe(true)
      expect(results[0]?.commands.map((command) => command.argv)).toEqual([
        ['cd', 'packages/app'],
        ['npm', 'run', 'build', '--', '--mode=production'],
        ['tee', '../build.log'],
      ])
      expect(results[0]?.commands[2]?.paths).toEqual([inCwd('packages', 'build.log')])
    })
  })
})
