/**
 * The person's hooks at the points of a chat's life that are not tool calls: a chat's first turn
 * in this run of Atelier (SessionStart), a prompt on its way to the model (UserPromptSubmit), a
 * question waiting for the person (Notification), a compaction (PreCompact), the end of a turn
 * (Stop) and of a subagent's run (SubagentStop).
 */
import type { TurnStatus } from '../../src-shared/agent'
import type { Question } from '../../src-shared/questions'
import type { Asker } from '../tools/scheduler/question-line'
import type { HookService } from './hook-service'

/** A chat as its hooks see it: its id and the project folder its hooks run in (null in chat mode). */
export interface HookedChat {
  id: string
  folder: string | null
}

/** What the hooks before a turn said: text for the model's request, or why the turn must not go on. */
export interface TurnOpening {
  /** SessionStart's and UserPromptSubmit's `additionalContext` (or plain stdout), for this turn's request. */
  context?: string
  /** A UserPromptSubmit hook's `continue: false` (its `stopReason`) or block (its reason). */
  stop?: string
}

/** How a subagent's run ended, for its SubagentStop hooks. */
export interface SubagentEnd {
  /** The chat whose turn ran the subagent. */
  chat: HookedChat
  /** The subagent's name (its profile): what a SubagentStop matcher is compared with. */
  agent: string
  status: TurnStatus
  signal?: AbortSignal
}

export class TurnHooks {
  /** Chats that had their SessionStart in this run of Atelier. */
  private readonly started = new Set<string>()

  constructor(private readonly hooks: HookService) {}

  /**
   * SessionStart, once per chat and run of Atelier — `startup` for a chat's first turn, `resume`
   * for one that had turns before — then UserPromptSubmit with the prompt.
   */
  async beforeTurn(
    chat: HookedChat,
    prompt: string | undefined,
    hadTurns: () => boolean,
    signal: AbortSignal,
  ): Promise<TurnOpening> {
    const contexts: string[] = []
    if (!this.started.has(chat.id)) {
      this.started.add(chat.id)
      const source = hadTurns() ? 'resume' : 'startup'
      const session = await this.run(chat, 'SessionStart', { source }, signal, source)
      if (session.context) contexts.push(session.context)
    }
    if (prompt !== undefined) {
      const submitted = await this.run(chat, 'UserPromptSubmit', { prompt }, signal)
      if (submitted.decision === 'stop' || submitted.decision === 'block') {
        return { stop: submitted.reason ?? 'A UserPromptSubmit hook stopped the turn.' }
      }
      if (submitted.context) contexts.push(submitted.context)
    }
    return contexts.length > 0 ? { context: contexts.join('\n\n') } : {}
  }

  /** Stop: the turn has ended, however it ended. */
  async turnEnded(chat: HookedChat, status: TurnStatus): Promise<void> {
    await this.run(chat, 'Stop', { stop_hook_active: false, status }, new AbortController().signal)
  }

  /**
   * SubagentStop: a subagent's run has ended. The one entry point the subagents' code calls; the
   * matcher is compared with the subagent's name.
   */
  async subagentEnded({ chat, agent, status, signal }: SubagentEnd): Promise<void> {
    const input = { stop_hook_active: false, agent_name: agent, status }
    await this.run(chat, 'SubagentStop', input, signal ?? new AbortController().signal, agent)
  }

  /** PreCompact: the conversation is about to be compacted, by the person (`manual`) or to fit (`auto`). */
  async compacting(chat: HookedChat, trigger: 'manual' | 'auto'): Promise<void> {
    const input = { trigger, custom_instructions: '' }
    await this.run(chat, 'PreCompact', input, new AbortController().signal, trigger)
  }

  /** The turn's asker, telling the Notification hooks of each question put to the person. */
  notifying(asker: Asker, chat: HookedChat): Asker {
    return {
      ...(asker.answerAtOnce && { answerAtOnce: (question: Question) => asker.answerAtOnce?.(question) }),
      ask: (question, signal) => {
        const input = { message: messageOf(question), notification_type: question.kind }
        // The person is asked at once: a notifier that takes its time must not hold the question back.
        void this.run(chat, 'Notification', input, signal, question.kind)
        return asker.ask(question, signal)
      },
    }
  }

  private async run(
    chat: HookedChat,
    event: 'SessionStart' | 'UserPromptSubmit' | 'Stop' | 'SubagentStop' | 'PreCompact' | 'Notification',
    input: Record<string, unknown>,
    signal: AbortSignal,
    matchOn?: string,
  ) {
    if (!this.hooks.has(event, chat.folder)) return { decision: 'none' as const, runs: [] }
    return this.hooks.run({
      event,
      folder: chat.folder,
      chatId: chat.id,
      input,
      signal,
      ...(matchOn !== undefined && { matchOn }),
    })
  }
}

/** What a Notification hook is told, in words, as Claude Code's `message`. */
function messageOf(question: Question): string {
  switch (question.kind) {
    case 'approval':
      return `Atelier needs your approval to run ${question.tool}.`
    case 'confirmation':
      return `${question.tool} asks you to confirm: ${question.action.label}`
    case 'elicitation':
      return `${question.server} asks: ${question.message}`
    case 'sampling':
      return `${question.server} asks to send a request to the model.`
    case 'plan':
      return 'The agent proposes a plan for your review.'
  }
}
