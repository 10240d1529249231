import { execFileSync } from 'node:child_process'
import { chmodSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { AgentFixture } from '../../support/agent-harness'
import { useSandboxedTurns } from '../../support/sandboxed-turns'

/** Bytes no text editor would keep as they are, to prove a restore is byte for byte. */
const C_BYTES = Buffer.from([0, 1, 2, 255, 254, 10, 13, 10, 0x80])

async function setUpIn(setUpTurns: ReturnType<typeof useSandboxedTurns>) {
  const setup = await setUpTurns()
  setup.atelier.chats.configure({ id: setup.chat.id, approvalMode: 'full-auto' })
  const { project } = setup
  writeFileSync(join(project, 'b.txt'), 'line one\nline two\n')
  writeFileSync(join(project, 'c.txt'), C_BYTES)
  writeFileSync(join(project, 'b.sh'), 'echo hi\n')
  chmodSync(join(project, 'b.sh'), 0o644)
  return setup
}

/** One turn of the example: two file tools, then a shell that deletes, creates and chmods. */
async function changeEverything({ fake, run }: AgentFixture) {
  const call = (id: string, name: string, args: object) => ({ id, name, arguments: JSON.stringify(args) })
  fake.enqueue(
    { toolCalls: [call('read', 'read_file', { path: 'b.txt' })] },
    {
      toolCalls: [
        call('write', 'write_file', { path: 'a.txt', content: 'all new\n' }),
        call('edit', 'edit_file', { path: 'b.txt', old_string: 'line two', new_string: 'line 2' }),
        call('shell', 'bash', { command: 'rm c.txt && mkdir d && echo x > d/e.txt && chmod +x b.sh' }),
      ],
    },
    { text: 'Done.' },
  )
  return run('change everything')
}

describe('checkpoints of a turn', () => {
  const setUpTurns = useSandboxedTurns()
  const setUp = () => setUpIn(setUpTurns)
  it('name every change with the call that made it, and a restore undoes them all', async () => {
    const setup = await setUp()
    const { atelier, chat, project } = setup
    const { turn } = await changeEverything(setup)
    expect(turn.status).toBe('completed')
    const [checkpoint] = atelier.checkpoints.list({ chatId: chat.id }).checkpoints
    expect(checkpoint).toMatchObject({ kind: 'turn', turnId: turn.id, added: 2, modified: 2, deleted: 1 })
    const { files } = atelier.checkpoints.changes({ id: checkpoint?.id ?? '' })
    const summary = files.map(
      (file) => `${file.change} ${file.path} ${file.by.map((by) => by.callId).join(',')}`,
    )
    expect(summary.sort()).toEqual(
      [
        'added a.txt write',
        'modified b.txt edit',
        'modified b.sh shell',
        'deleted c.txt shell',
        'added d shell',
        'added d/e.txt shell',
      ].sort(),
    )
    expect(files.find((file) => file.path === 'b.txt')?.diff).toContain('-line two\n+line 2')

    const outcome = await atelier.checkpoints.rewind({ chatId: chat.id, turnId: turn.id, scope: 'files' })
    expect(outcome.conflicts).toEqual([])
    expect(readFileSync(join(project, 'c.txt'))).toEqual(C_BYTES)
    expect(existsSync(join(project, 'a.txt'))).toBe(false)
    expect(existsSync(join(project, 'd'))).toBe(false)
    expect(readFileSync(join(project, 'b.txt'), 'utf8')).toBe('line one\nline two\n')
    expect(statSync(join(project, 'b.sh')).mode & 0o777).toBe(0o644)

    // Redo: the restore is a checkpoint of its own.
    await atelier.checkpoints.undo({ id: outcome.checkpointId ?? '' })
    expect(existsSync(join(project, 'c.txt'))).toBe(false)
    expect(readFileSync(join(project, 'd/e.txt'), 'utf8')).toBe('x\n')
    expect(statSync(join(project, 'b.sh')).mode & 0o111).not.toBe(0)
    expect(atelier.checkpoints.check()).toEqual([])
  })

  it("keeps the person's later edit as a conflict, and tells the model what was reverted", async () => {
    const setup = await setUp()
    const { atelier, chat, project, fake, run } = setup
    await changeEverything(setup)
    writeFileSync(join(project, 'b.txt'), 'my own words\n')
    const [checkpoint] = atelier.checkpoints.list({ chatId: chat.id }).checkpoints
    const preview = await atelier.checkpoints.undo({ id: checkpoint?.id ?? '', preview: true })
    expect(preview.conflicts).toEqual([{ path: 'b.txt', kept: 'mine' }])
    expect(existsSync(join(project, 'a.txt'))).toBe(true)

    const outcome = await atelier.checkpoints.undo({ id: checkpoint?.id ?? '' })
    expect(outcome.conflicts).toEqual([{ path: 'b.txt', kept: 'mine' }])
    expect(readFileSync(join(project, 'b.txt'), 'utf8')).toBe('my own words\n')
    expect(existsSync(join(project, 'a.txt'))).toBe(false)

    fake.enqueue({ text: 'Noted.' })
    await run('go on')
    const request = JSON.stringify(fake.requests.at(-1))
    expect(request).toContain('restored files of the folder from a checkpoint')
    expect(request).toContain('a.txt')
    expect(request).not.toContain('b.txt\\n')
  })

  it('takes the checkpoint for a conflict when the person chooses it', async () => {
    const setup = await setUp()
    const { atelier, chat, project } = setup
    await changeEverything(setup)
    writeFileSync(join(project, 'b.txt'), 'my own words\n')
    const [checkpoint] = atelier.checkpoints.list({ chatId: chat.id }).checkpoints
    await atelier.checkpoints.undo({
      id: checkpoint?.id ?? '',
      choices: [{ path: 'b.txt', take: 'checkpoint' }],
    })
    expect(readFileSync(join(project, 'b.txt'), 'utf8')).toBe('line one\nline two\n')
  })

  it("leaves a git repository's .git untouched, and what .gitignore ignores unrecorded", async () => {
    const setup = await setUp()
    const { atelier, chat, project } = setup
    const git = (...args: string[]) => execFileSync('git', args, { cwd: project, encoding: 'utf8' })
    git('init', '-q')
    writeFileSync(join(project, '.gitignore'), 'build/\n')
    git('add', '-A')
    git('-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'first')
    setup.fake.enqueue(
      {
        toolCalls: [
          {
            id: 'b',
            name: 'bash',
            arguments: JSON.stringify({
              command: 'mkdir build && echo o > build/out.js && echo n > new.txt',
            }),
          },
        ],
      },
      { text: 'Done.' },
    )
    const state = () => [
      git('status', '--porcelain'),
      git('stash', 'list'),
      git('for-each-ref'),
      readFileSync(join(project, '.git/index')).toString('base64'),
    ]
    const before = state()
    await setup.run('build it')
    const [checkpoint] = atelier.checkpoints.list({ chatId: chat.id }).checkpoints
    const { files } = atelier.checkpoints.changes({ id: checkpoint?.id ?? '' })
    expect(files.map((file) => file.path)).toEqual(['new.txt'])
    await atelier.checkpoints.undo({ id: checkpoint?.id ?? '' })
    expect(existsSync(join(project, 'new.txt'))).toBe(false)
    expect(existsSync(join(project, 'build/out.js'))).toBe(true)
    expect(state()).toEqual(before)
  })

  it('rewinds files and conversation to before the second of three prompts, keeps the third as a fork, and redoes', async () => {
    const setup = await setUp()
    const { atelier, chat, project, fake, run } = setup
    const write = (id: string, path: string, content: string) => ({
      toolCalls: [{ id, name: 'write_file', arguments: JSON.stringify({ path, content }) }],
    })
    fake.enqueue(write('w1', 'one.txt', '1'), { text: 'One.' })
    await run('first')
    fake.enqueue(write('w2', 'two.txt', '2'), { text: 'Two.' })
    const second = await run('second')
    fake.enqueue(write('w3', 'one.txt', '1 again'), { text: 'Three.' })
    await run('third')
    const prompts = () =>
      atelier.agent
        .view({ id: chat.id })
        .messages.filter((message) => message.role === 'user')
        .map((message) => message.parts.map((part) => (part.type === 'text' ? part.text : '')).join(''))

    const outcome = await atelier.checkpoints.rewind({
      chatId: chat.id,
      turnId: second.turn.id,
      scope: 'both',
    })
    expect(outcome.restored.sort()).toEqual(['one.txt', 'two.txt'])
    expect(readFileSync(join(project, 'one.txt'), 'utf8')).toBe('1')
    expect(existsSync(join(project, 'two.txt'))).toBe(false)
    expect(prompts()).toEqual(['first'])
    const fork = outcome.forkChatId ?? ''
    expect(atelier.chats.get(fork).title).toContain('(before rewind)')
    expect(
      atelier.agent
        .view({ id: fork })
        .messages.filter((message) => message.role === 'user')
        .map((message) => message.parts.map((part) => (part.type === 'text' ? part.text : '')).join('')),
    ).toEqual(['first', 'second', 'third'])

    await atelier.checkpoints.undo({ id: outcome.checkpointId ?? '' })
    expect(prompts()).toEqual(['first', 'second', 'third'])
    expect(readFileSync(join(project, 'one.txt'), 'utf8')).toBe('1 again')
    expect(readFileSync(join(project, 'two.txt'), 'utf8')).toBe('2')
    expect(() => atelier.chats.get(fork)).toThrow()
  })
})
