import { setTimeout as sleep } from 'node:timers/promises'
import { afterEach, describe, expect, it } from 'vitest'
import { type Atelier, createAtelier, LOCAL_USER } from '../../../src-main/app/create-atelier'
import { FreshnessRepository } from '../../../src-main/db/freshness-repository'
import { FatalToolError, ToolArgumentError } from '../../../src-main/tools/errors'
import { type ToolCallScope, ToolExecutor, toToolOutput } from '../../../src-main/tools/executor'
import { ToolRegistry } from '../../../src-main/tools/registry'
import type { ToolContext } from '../../../src-main/tools/types'
import { useTempDirs } from '../../support/temp-dir'
import { recordingTool } from '../../support/test-tools'

const scope: ToolCallScope = { user: LOCAL_USER, workingDirectory: '/work', mode: 'agent', restrict: true }

describe('ToolExecutor', () => {
  const tempDir = useTempDirs()
  const opened: Atelier[] = []
  afterEach(() => {
    for (const atelier of opened.splice(0)) atelier.close()
  })

  function withTool(
    behave?: (args: unknown, context: ToolContext) => Promise<unknown>,
    maxResultChars?: number,
  ) {
    const registry = new ToolRegistry()
    const recorded = recordingTool('search', behave)
    registry.register(recorded.tool)
    const atelier = createAtelier({ dataDir: tempDir(), registry })
    opened.push(atelier)
    const executor = maxResultChars
      ? new ToolExecutor(
          registry,
          atelier.tools.settings,
          { protectedPaths: [], ledgers: new FreshnessRepository(atelier.db) },
          maxResultChars,
        )
      : atelier.tools.executor
    return { atelier, executor, calls: recorded.calls }
  }

  describe('argument validation', () => {
    it.each([
      [{ pattern: 'x', caseInsensitive: 'true' }, '/caseInsensitive: Expected boolean (got "true")'],
      [{ pattern: 'x', path: 42 }, '/path: Expected string (got 42)'],
      [{ pattern: 'x', limit: 2.5 }, '/limit: Expected integer'],
      [{ pattern: 'x', limit: 11 }, '/limit: Expected integer to be less or equal to 10'],
      [{ pattern: '' }, '/pattern: Expected string length greater or equal to 1'],
      [{ pattern: 'x'.repeat(21) }, '/pattern: Expected string length less or equal to 20'],
      [{ file: 'x' }, '/pattern: Expected required property'],
      [{ pattern: 'x', extra: 1 }, '/extra: Unexpected property'],
      [{ pattern: null }, '/pattern: Expected string (got null)'],
    ])('rejects %j as validation_failed without running the tool', async (args, problem) => {
      const { executor, calls } = withTool()
      const result = await executor.execute({ name: 'search', arguments: args }, scope)
      expect(result).toMatchObject({ isError: true, errorType: 'validation_failed' })
      expect(result.content).toContain(problem)
      expect(result.content).toMatch(
        /^Invalid arguments for search: .*Fix the arguments and call search again\.$/,
      )
      expect(calls).toEqual([])
    })

    it('reads null optionals as absent, as Responses strict mode sends them', async () => {
      const { executor, calls } = withTool()
      const result = await executor.execute(
        { name: 'search', arguments: { pattern: 'x', path: null, caseInsensitive: null, limit: null } },
        scope,
      )
      expect(result.isError).toBe(false)
      expect(calls[0]?.args).toEqual({ pattern: 'x' })
    })

    it('parses raw JSON text and refuses text that is not JSON', async () => {
      const { executor } = withTool()
      expect(await executor.execute({ name: 'search', arguments: '{"pattern":"a"}' }, scope)).toMatchObject({
        isError: false,
      })
      const broken = await executor.execute({ name: 'search', arguments: '{"pattern":' }, scope)
      expect(broken).toMatchObject({ isError: true, errorType: 'validation_failed' })
      expect(broken.content).toContain('not valid JSON')
    })

    it('treats a ToolArgumentError thrown by the tool itself as validation_failed', async () => {
      const { executor } = withTool(async () => {
        throw new ToolArgumentError('"Mars/Base" is not a time zone')
      })
      expect(await executor.execute({ name: 'search', arguments: { pattern: 'x' } }, scope)).toMatchObject({
        isError: true,
        errorType: 'validation_failed',
        content: expect.stringContaining('"Mars/Base" is not a time zone'),
      })
    })
  })

  describe('lookup and enabled check', () => {
    it('answers an unknown tool with a result the model can read', async () => {
      const { executor } = withTool()
      expect(await executor.execute({ name: 'serach', arguments: {} }, scope)).toMatchObject({
        isError: true,
        errorType: 'unknown_tool',
        content: 'Unknown tool "serach". Available tools: search.',
      })
    })

    it('refuses a tool the user turned off', async () => {
      const { atelier, executor, calls } = withTool()
      atelier.tools.settings.update(LOCAL_USER, 'search', { enabled: false })
      expect(await executor.execute({ name: 'search', arguments: { pattern: 'x' } }, scope)).toMatchObject({
        isError: true,
        errorType: 'not_enabled',
      })
      expect(calls).toEqual([])
    })

    it('refuses a registered, enabled tool the turn did not offer, naming the ones it did', async () => {
      const { executor, calls } = withTool()
      const offered = new Set(['read_file', 'grep'])
      expect(
        await executor.execute({ name: 'search', arguments: { pattern: 'x' } }, { ...scope, offered }),
      ).toMatchObject({
        isError: true,
        errorType: 'not_offered',
        content:
          'The tool "search" is not offered in this chat; do not call it again. Offered tools: read_file, grep.',
      })
      expect(calls).toEqual([])
      const unknown = await executor.execute({ name: 'serach', arguments: {} }, { ...scope, offered })
      expect(unknown.content).toBe('Unknown tool "serach". Available tools: read_file, grep.')
    })
  })

  describe('context', () => {
    it('hands the tool its scope and effective settings', async () => {
      const { atelier, executor, calls } = withTool()
      atelier.tools.settings.update(LOCAL_USER, 'search', { parameters: { maxResults: 3 } })
      await executor.execute({ name: 'search', arguments: { pattern: 'x' } }, { ...scope, chatId: 'c1' })
      expect(calls[0]?.context).toMatchObject({
        chatId: 'c1',
        user: LOCAL_USER,
        workingDirectory: '/work',
        mode: 'agent',
        restrict: true,
        settings: { enabled: true, parameters: { maxResults: 3 } },
      })
      expect(calls[0]?.context.signal.aborted).toBe(false)
    })

    it('hands a runner the call as plain JSON, with a deadline, and the host apart', async () => {
      const registry = new ToolRegistry()
      const received: { record: string; host: string[] }[] = []
      const { tool } = recordingTool('remote')
      registry.register({
        ...tool,
        runner: {
          // What another process would receive: the record must survive JSON unchanged.
          run: async (call, host) => {
            received.push({ record: JSON.stringify(call), host: Object.keys(host).sort() })
            expect(JSON.parse(JSON.stringify(call))).toEqual(call)
            return `ran ${call.callId}`
          },
        },
      })
      const atelier = createAtelier({ dataDir: tempDir(), registry })
      opened.push(atelier)
      const before = Date.now()
      const result = await atelier.tools.executor.execute(
        { id: 'call-7', name: 'remote', arguments: '{"pattern":"x","limit":null}' },
        { ...scope, chatId: 'c1' },
      )
      expect(result).toMatchObject({ isError: false, content: 'ran call-7' })
      const record = JSON.parse(received[0]?.record ?? '{}')
      expect(record).toMatchObject({
        callId: 'call-7',
        tool: 'remote',
        args: { pattern: 'x' },
        chatId: 'c1',
        user: LOCAL_USER,
        workingDirectory: '/work',
        mode: 'agent',
        restrict: true,
        settings: { enabled: true, parameters: { timeoutSeconds: 30 } },
      })
      expect(record.deadline).toBeGreaterThanOrEqual(before + 30_000)
      expect(record.deadline).toBeLessThan(Date.now() + 31_000)
      expect(received[0]?.host).toEqual([
        'beginCommit',
        'codeIntelligence',
        'images',
        'journal',
        'ledger',
        'onUpdate',
        'protectedPaths',
        'sandbox',
        'signal',
      ])
    })

    it('streams progress through onUpdate', async () => {
      const { executor } = withTool(async (_args, context) => {
        context.onUpdate({ kind: 'progress', done: 1, total: 2, message: 'half way' })
        return 'done'
      })
      const progress: unknown[] = []
      await executor.execute(
        { name: 'search', arguments: { pattern: 'x' } },
        { ...scope, onUpdate: (p) => progress.push(p) },
      )
      expect(progress).toEqual([{ kind: 'progress', done: 1, total: 2, message: 'half way' }])
    })
  })

  describe('results', () => {
    it('serializes non-string results as JSON and keeps data away from the model', async () => {
      expect(toToolOutput({ files: 2 })).toEqual({ content: '{\n  "files": 2\n}' })
      expect(toToolOutput(undefined)).toEqual({ content: '(no output)' })
      const { executor } = withTool(async () => ({ content: 'two files', data: { secret: 'telemetry' } }))
      const result = await executor.execute({ name: 'search', arguments: { pattern: 'x' } }, scope)
      expect(result).toMatchObject({ content: 'two files', isError: false, data: { secret: 'telemetry' } })
      expect(result.content).not.toContain('telemetry')
    })

    it('passes a ToolOutput marked isError on as an error', async () => {
      const { executor } = withTool(async () => ({
        content: 'No file at "a.txt". Check the path.',
        isError: true,
      }))
      expect(await executor.execute({ name: 'search', arguments: { pattern: 'x' } }, scope)).toMatchObject({
        isError: true,
        errorType: 'execution_failed',
        content: 'No file at "a.txt". Check the path.',
      })
    })

    it('accepts a ToolOutput with keys it does not know: they are ignored, logged once, and isError stays', async () => {
      const { executor } = withTool(async () => ({ content: 'no such file', isError: true, extra: 1 }))
      const warned: unknown[] = []
      const warn = console.warn
      console.warn = (...parts: unknown[]) => warned.push(parts.join(' '))
      try {
        for (const _ of [1, 2]) {
          const result = await executor.execute({ name: 'search', arguments: { pattern: 'x' } }, scope)
          expect(result).toMatchObject({
            content: 'no such file',
            isError: true,
            errorType: 'execution_failed',
          })
          expect(result).not.toHaveProperty('extra')
        }
      } finally {
        console.warn = warn
      }
      expect(warned).toEqual(['search returned keys a tool result does not have, ignored: extra.'])
    })

    it('a runner in another process raises a fatal failure by the envelope: errorType fatal, the cause in data', async () => {
      const { executor } = withTool(async () => ({
        content: 'the broker lost its database',
        isError: true,
        errorType: 'fatal',
        data: { cause: 'pq: password authentication failed for user "svc"' },
      }))
      const logged: unknown[] = []
      const error = console.error
      console.error = (...parts: unknown[]) => logged.push(parts.join(' '))
      try {
        await expect(
          executor.execute({ name: 'search', arguments: { pattern: 'x' } }, scope),
        ).rejects.toMatchObject({
          name: 'FatalToolError',
          message: 'the broker lost its database',
          cause: 'pq: password authentication failed for user "svc"',
        })
      } finally {
        console.error = error
      }
      expect(logged).toEqual([
        'search failed fatally: the broker lost its database\nCaused by: pq: password authentication failed for user "svc"',
      ])
    })

    it('truncates a large result with a notice, never splitting a character', async () => {
      const { executor } = withTool(async () => `${'a'.repeat(9)}😀${'b'.repeat(100)}`, 10)
      const result = await executor.execute({ name: 'search', arguments: { pattern: 'x' } }, scope)
      expect(result.truncated).toBe(true)
      expect(result.content).toMatch(/^a{9}\n\n\[Output truncated: showing 9 of 111 characters\./)
    })

    it('turns a thrown error into a result the model reads', async () => {
      const { executor } = withTool(async () => {
        throw new Error('disk full')
      })
      expect(await executor.execute({ name: 'search', arguments: { pattern: 'x' } }, scope)).toMatchObject({
        isError: true,
        errorType: 'execution_failed',
        content: 'search failed: disk full',
      })
    })

    it('lets FatalToolError end the run, its message never in a result', async () => {
      const { executor } = withTool(async () => {
        throw new FatalToolError('credentials expired')
      })
      const seen: unknown[] = []
      executor.addAfterToolHook((_call, result) => {
        seen.push(result)
        return undefined
      })
      await expect(
        executor.execute({ name: 'search', arguments: { pattern: 'x' } }, scope),
      ).rejects.toMatchObject({
        name: 'FatalToolError',
        message: 'credentials expired',
      })
      expect(seen).toEqual([])
      // Its cause stays with it, for the log.
      const cause = new Error('token revoked')
      expect(new FatalToolError('credentials expired', { cause }).cause).toBe(cause)
    })
  })

  describe('timeout and abort', () => {
    it('stops a tool that overruns its timeoutSeconds, even one that ignores its signal', async () => {
      let signal: AbortSignal | undefined
      const { atelier, executor } = withTool(async (_args, context) => {
        signal = context.signal
        return new Promise(() => {})
      })
      atelier.tools.settings.update(LOCAL_USER, 'search', { parameters: { timeoutSeconds: 5 } })
      const started = Date.now()
      const result = await executor.execute({ name: 'search', arguments: { pattern: 'x' } }, scope)
      expect(result).toMatchObject({
        isError: true,
        errorType: 'timeout',
        content: 'search timed out after 5s and was stopped.',
      })
      expect(Date.now() - started).toBeGreaterThanOrEqual(4900)
      expect(signal?.aborted).toBe(true)
    }, 10_000)

    it('reports a user stop as aborted, never as a timeout, and aborts the tool', async () => {
      let signal: AbortSignal | undefined
      const { executor } = withTool(
        (_args, context) =>
          new Promise((_, reject) => {
            signal = context.signal
            context.signal.addEventListener('abort', () => reject(new Error('interrupted')))
          }),
      )
      const stop = new AbortController()
      const pending = executor.execute(
        { name: 'search', arguments: { pattern: 'x' } },
        { ...scope, signal: stop.signal },
      )
      setTimeout(() => stop.abort(), 20)
      expect(await pending).toMatchObject({
        isError: true,
        errorType: 'aborted',
        content: 'search was cancelled by the user.',
      })
      expect(signal?.aborted).toBe(true)
    })

    describe('a tool of kind edit', () => {
      /** An edit tool that passes its commit point after `commitAfterMs`, then takes `finishMs` to report. */
      function withEditTool(commitAfterMs: number, finishMs: number) {
        const changes: string[] = []
        const registry = new ToolRegistry()
        const recorded = recordingTool('change', async (_args, context) => {
          await sleep(commitAfterMs)
          context.signal.throwIfAborted()
          context.beginCommit()
          changes.push('made')
          await sleep(finishMs)
          return 'changed the thing'
        })
        registry.register({ ...recorded.tool, kind: 'edit' })
        const atelier = createAtelier({ dataDir: tempDir(), registry })
        opened.push(atelier)
        return { atelier, changes }
      }
      const call = { name: 'change', arguments: { pattern: 'x' } }
      /** Longer than a stopped edit tool is given to settle when it has not committed. */
      const LONG_AFTER_COMMIT_MS = 2500

      it('reports the change it made when the stop comes after its commit, never "cancelled"', async () => {
        const { atelier, changes } = withEditTool(50, LONG_AFTER_COMMIT_MS)
        const stop = new AbortController()
        setTimeout(() => stop.abort(), 150)
        const result = await atelier.tools.executor.execute(call, { ...scope, signal: stop.signal })
        expect(changes).toEqual(['made'])
        expect(result).toMatchObject({ isError: false, content: 'changed the thing' })
      })

      it('reports the change it made when its budget runs out between the commit and its result', async () => {
        const { atelier, changes } = withEditTool(4800, LONG_AFTER_COMMIT_MS)
        atelier.tools.settings.update(LOCAL_USER, 'change', { parameters: { timeoutSeconds: 5 } })
        const result = await atelier.tools.executor.execute(call, scope)
        expect(changes).toEqual(['made'])
        expect(result).toMatchObject({ isError: false, content: 'changed the thing' })
      }, 15_000)

      it('reports a stop before its commit as aborted once it has settled, and it changes nothing', async () => {
        const { atelier, changes } = withEditTool(300, 0)
        const stop = new AbortController()
        setTimeout(() => stop.abort(), 50)
        const result = await atelier.tools.executor.execute(call, { ...scope, signal: stop.signal })
        expect(result).toMatchObject({ isError: true, errorType: 'aborted' })
        await sleep(400)
        expect(changes).toEqual([])
      })
    })

    it('does not start a tool whose call was already stopped', async () => {
      const { executor, calls } = withTool()
      const stop = new AbortController()
      stop.abort()
      expect(
        await executor.execute(
          { name: 'search', arguments: { pattern: 'x' } },
          { ...scope, signal: stop.signal },
        ),
      ).toMatchObject({ errorType: 'aborted' })
      expect(calls).toEqual([])
    })
  })

  describe('hooks', () => {
    it('lets beforeTool block a call with a reason the model sees', async () => {
      const { executor, calls } = withTool()
      const remove = executor.addBeforeToolHook(({ args }) =>
        (args as { pattern: string }).pattern === 'secret'
          ? { block: 'searching for secrets is not allowed' }
          : undefined,
      )
      expect(
        await executor.execute({ name: 'search', arguments: { pattern: 'secret' } }, scope),
      ).toMatchObject({
        isError: true,
        errorType: 'blocked',
        content: 'The call to search was blocked: searching for secrets is not allowed',
      })
      expect(calls).toEqual([])
      remove()
      expect(
        (await executor.execute({ name: 'search', arguments: { pattern: 'secret' } }, scope)).isError,
      ).toBe(false)
    })

    it('turns a hook that throws into an error result instead of a rejected call', async () => {
      const { executor, calls } = withTool()
      const remove = executor.addBeforeToolHook(() => {
        throw new Error('policy service down')
      })
      expect(await executor.execute({ name: 'search', arguments: { pattern: 'x' } }, scope)).toMatchObject({
        isError: true,
        errorType: 'execution_failed',
        content: 'The beforeTool hook for search failed: policy service down',
      })
      expect(calls).toEqual([])
      remove()
      executor.addAfterToolHook(() => {
        throw new Error('audit log full')
      })
      expect(await executor.execute({ name: 'search', arguments: { pattern: 'x' } }, scope)).toMatchObject({
        errorType: 'execution_failed',
        content: 'The afterTool hook for search failed: audit log full',
      })
    })

    it('lets afterTool rewrite a result, seeing its data', async () => {
      const { executor } = withTool(async () => ({ content: 'raw', data: { lines: 42 } }))
      executor.addAfterToolHook((_call, result) => ({
        ...result,
        content: `${result.content} (${(result.data as { lines: number }).lines} lines)`,
      }))
      expect((await executor.execute({ name: 'search', arguments: { pattern: 'x' } }, scope)).content).toBe(
        'raw (42 lines)',
      )
    })
  })
})
