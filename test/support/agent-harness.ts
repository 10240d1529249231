import { realpathSync } from 'node:fs'
import { afterEach } from 'vitest'
import { type Atelier, type AtelierOptions, createAtelier } from '../../src-main/app/create-atelier'
import type { Asker } from '../../src-main/approvals/askers'
import { builtinTools } from '../../src-main/tools/builtin'
import type { RegisteredTool } from '../../src-main/tools/types'
import type { ChatMessage, Turn, TurnEvent } from '../../src-shared/agent'
import type { Chat } from '../../src-shared/contract'
import { type FakeKind, type FakeProvider, startFakeProvider } from './fake-provider'
import { useTempDirs } from './temp-dir'
import { turnCodeIntelligenceOff } from './tool-harness'

/** Keys for every kind in the environment: never sent to the fake, which is not an official endpoint. */
export const FAKE_ENV = {
  OPENAI_API_KEY: 'test-key',
  GEMINI_API_KEY: 'test-key',
  ANTHROPIC_API_KEY: 'test-key',
}
/** Retries that wait milliseconds, not seconds. */
export const FAST_RETRY = { attempts: 3, baseDelayMs: 5, maxDelayMs: 20 }

export interface AgentFixture {
  atelier: Atelier
  fake: FakeProvider
  chat: Chat
  project: string
  /** The app's home: where the person's own tool folders (`~/.atelier/tools`, …) are looked for. */
  home: string
  /** Runs one turn to its end; the events it streamed and the conversation after it. */
  run(
    prompt: string,
    options?: { maxIterations?: number; onEvent?: (event: TurnEvent) => void; asker?: Asker },
  ): Promise<TurnRun>
}

export interface TurnRun {
  turn: Turn
  events: TurnEvent[]
  messages: ChatMessage[]
}

export interface AgentFixtureOptions {
  /** The home folder the app looks in for the person's tool folders; a fresh temp folder by default. */
  home?: string
  /** Whether a person watches (custom tools' `hasUI`); false by default, as in `atelier run`. */
  hasUI?: boolean
  /** The app's data folder (the database, the secret store); a fresh temp folder by default. */
  dataDir?: string
  /** Finds the platform's sandbox; by default a probe of this machine. */
  detectSandbox?: AtelierOptions['detectSandbox']
}

/**
 * A real Atelier (real SQLite, real executor) whose chat talks through the official SDK of `kind`
 * to a local fake provider, in agent mode on a real temp project folder. The extra tools are
 * registered next to the built-ins. Its home is a temp folder, so the person's real `~/.atelier`
 * never lends a test its tools.
 */
export function useAgentFixture() {
  const tempDir = useTempDirs()
  const cleanups: (() => unknown)[] = []
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
  })
  return async (
    kind: FakeKind = 'openai-chat',
    tools: RegisteredTool[] = [],
    options: AgentFixtureOptions = {},
  ): Promise<AgentFixture> => {
    const fake = await startFakeProvider()
    cleanups.push(() => fake.close())
    const registry = builtinTools.clone()
    for (const tool of tools) registry.register(tool)
    const home = options.home ?? realpathSync(tempDir())
    const atelier = createAtelier({
      dataDir: options.dataDir ?? tempDir(),
      registry,
      env: FAKE_ENV,
      retry: FAST_RETRY,
      home,
      ...(options.hasUI !== undefined && { hasUI: options.hasUI }),
      ...(options.detectSandbox && { detectSandbox: options.detectSandbox }),
    })
    cleanups.push(() => atelier.close())
    turnCodeIntelligenceOff(atelier)
    const project = realpathSync(tempDir())
    const provider = atelier.providers.create({
      kind,
      name: `Fake ${kind}`,
      baseUrl: fake.baseUrlFor(kind),
      defaultModel: 'fake-model',
    })
    const chat = atelier.chats.configure({
      id: atelier.chats.create({}).id,
      workingDir: project,
      mode: 'agent',
      provider: provider.id,
      // These turns are about the loop, not approvals (they have tests of their own): nothing asks.
      approvalMode: 'full-auto',
    })
    const run: AgentFixture['run'] = async (prompt, options = {}) => {
      const events: TurnEvent[] = []
      const { done } = atelier.agent.begin({
        chatId: chat.id,
        prompt,
        ...(options.maxIterations && { maxIterations: options.maxIterations }),
        ...(options.asker && { asker: options.asker }),
        onEvent: (event) => {
          events.push(event)
          options.onEvent?.(event)
        },
      })
      const turn = await done
      return { turn, events, messages: atelier.agent.conversation({ id: chat.id }).messages }
    }
    return { atelier, fake, chat, project, home, run }
  }
}
