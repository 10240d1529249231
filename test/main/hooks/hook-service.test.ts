import { readFileSync, realpathSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import { AppSettingsRepository } from '../../../src-main/db/app-settings-repository'
import { openDatabase } from '../../../src-main/db/database'
import { compileMatcher } from '../../../src-main/hooks/hook-matcher'
import { HookService } from '../../../src-main/hooks/hook-service'
import { argvOf } from '../../../src-main/hooks/run-hook-command'
import { FolderTrust } from '../../../src-main/tools/custom/folder-trust'
import { useTempDirs } from '../../support/temp-dir'

const FIXTURES = fileURLToPath(new URL('../../fixtures/hooks/', import.meta.url))

describe('HookService', () => {
  const tempDir = useTempDirs()
  const services: { close(): Promise<void> }[] = []
  afterEach(async () => {
    for (const service of services.splice(0)) await service.close()
  })

  /** A service whose home is a fresh folder, trusting projects as the app does (its settings in a real database). */
  function serviceFor() {
    const home = realpathSync(tempDir())
    const db = openDatabase(join(tempDir(), 'atelier.db'))
    const service = new HookService({ home, trust: new FolderTrust(new AppSettingsRepository(db), Date.now) })
    services.push({
      close: async () => {
        await service.close()
        db.close()
      },
    })
    return { service, home }
  }

  describe('import', () => {
    it("maps a Claude Code settings file's four hooks and lists what has no counterpart", () => {
      const { service, home } = serviceFor()
      const imported = service.import({
        scope: 'user',
        from: join(FIXTURES, 'claude-settings.json'),
        dialect: 'claude',
      })

      expect(
        imported.added.map(({ event, matcher, command, timeoutSeconds }) => ({
          event,
          matcher,
          command,
          timeoutSeconds,
        })),
      ).toEqual([
        {
          event: 'PreToolUse',
          matcher: 'bash',
          command: '"$CLAUDE_PROJECT_DIR"/.claude/hooks/check-bash.sh',
          timeoutSeconds: 60,
        },
        {
          event: 'PostToolUse',
          matcher: 'edit_file|write_file',
          command: "jq -r '.tool_input.file_path' | xargs npx prettier --write",
          timeoutSeconds: 30,
        },
        {
          event: 'Notification',
          matcher: '',
          command: "notify-send 'Claude Code' 'Awaiting your input'",
          timeoutSeconds: 60,
        },
        {
          event: 'Stop',
          matcher: '',
          command: 'python3 /home/me/.claude/hooks/log_stop.py',
          timeoutSeconds: 60,
        },
      ])
      expect(imported.skipped).toEqual([
        { what: 'SessionEnd (1 group)', why: 'Atelier has no event like SessionEnd.' },
      ])
      const written = JSON.parse(readFileSync(join(home, '.atelier', 'hooks.json'), 'utf8'))
      expect(Object.keys(written.hooks)).toEqual(['PreToolUse', 'PostToolUse', 'Notification', 'Stop'])
      expect(service.list()).toHaveLength(4)
    })

    it("maps Gemini CLI's event names, tool names and millisecond timeouts", () => {
      const { service } = serviceFor()
      const imported = service.import({
        scope: 'user',
        from: join(FIXTURES, 'gemini-settings.json'),
        dialect: 'gemini',
      })

      expect(imported.added).toEqual([
        expect.objectContaining({ event: 'PreToolUse', matcher: 'write_file|edit_file', timeoutSeconds: 5 }),
        expect.objectContaining({ event: 'Stop', command: './scripts/summary.sh' }),
      ])
      expect(imported.skipped).toEqual([
        { what: 'BeforeModel (1 group)', why: 'Atelier has no event like BeforeModel.' },
      ])
    })
  })

  describe('add, update, remove', () => {
    it("keeps the file's other keys, moves a hook whose matcher changes, and drops emptied events", () => {
      const { service, home } = serviceFor()
      const file = join(home, '.atelier', 'hooks.json')
      const added = service.add({ scope: 'user', event: 'PreToolUse', matcher: 'bash', command: 'true' })
      const settings = JSON.parse(readFileSync(file, 'utf8'))
      writeFileSync(file, JSON.stringify({ note: 'mine', ...settings }))

      const moved = service.update({ scope: 'user', id: added.id, matcher: 'grep', timeout: 5 })
      expect(moved).toMatchObject({ matcher: 'grep', command: 'true', timeoutSeconds: 5 })
      expect(JSON.parse(readFileSync(file, 'utf8')).hooks.PreToolUse).toEqual([
        { matcher: 'grep', hooks: [{ type: 'command', command: 'true', timeout: 5 }] },
      ])
      service.remove({ scope: 'user', id: moved.id })
      expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ note: 'mine', hooks: {} })
    })

    it('refuses a matcher that is not a pattern', () => {
      const { service } = serviceFor()
      expect(() =>
        service.add({ scope: 'user', event: 'PreToolUse', matcher: 'bash(', command: 'true' }),
      ).toThrow(/not a valid pattern/)
    })
  })

  describe('test', () => {
    it('runs a hook with its sample input and records the run', async () => {
      const { service } = serviceFor()
      const hook = service.add({
        scope: 'user',
        event: 'PreToolUse',
        command: `node -e "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>{process.stderr.write(JSON.parse(s).tool_input.command);process.exit(2)})"`,
      })
      const run = await service.test({ scope: 'user', id: hook.id })
      expect(run).toMatchObject({ decision: 'block', reason: 'echo hello', exitCode: 2 })
      expect(service.runs()).toEqual([run])
    })

    it('refuses to test a hook of a project that is not trusted', async () => {
      const { service } = serviceFor()
      const project = realpathSync(tempDir())
      const hook = service.add({ scope: 'project', folder: project, event: 'Stop', command: 'true' })
      await expect(service.test({ scope: 'project', folder: project, id: hook.id })).rejects.toThrow(
        /trusted/,
      )
    })
  })
})

describe('compileMatcher', () => {
  it.each([
    [undefined, 'bash', true],
    ['*', 'anything', true],
    ['bash', 'bash', true],
    ['bash', 'bash_2', false],
    ['edit_file|write_file', 'write_file', true],
    ['mcp__github__.*', 'mcp__github__create_issue', true],
    ['mcp__github__.*', 'x_mcp__github__a', false],
  ])('matcher %s on %s: %s', (matcher, value, matches) => {
    expect(compileMatcher(matcher).test(value)).toBe(matches)
  })
})

describe('argvOf', () => {
  it('runs a plain command line as argv, quotes removed, and a shell line with sh -c', () => {
    expect(argvOf(`node "my hooks/gate.js" --strict`)).toEqual({
      file: 'node',
      args: ['my hooks/gate.js', '--strict'],
    })
    expect(argvOf('jq -r .tool_input.path | xargs prettier --write')).toEqual({
      file: '/bin/sh',
      args: ['-c', 'jq -r .tool_input.path | xargs prettier --write'],
    })
    expect(argvOf('"$CLAUDE_PROJECT_DIR"/hooks/x.sh').file).toBe('/bin/sh')
  })
})
