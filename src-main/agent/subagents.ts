/**
 * Subagents: a `task` call runs a child turn on an agent profile, in a hidden chat of its own made
 * like its parent's (folder, mode, provider, model), so compaction, budgets, storage and restart
 * survival are any turn's. The child starts from the profile's system prompt and the task's prompt
 * alone, is offered the profile's tools among those its parent turn was offered (never more), asks
 * its questions in its parent chat's line, and stops when the call does. Its answer is the call's
 * result; its events reach the parent's stream wrapped with the call's id.
 */
import type { ChatMessage, Turn, TurnEvent, TurnStatus } from '../../src-shared/agent'
import type { ApprovalMode } from '../../src-shared/approvals'
import type { Chat } from '../../src-shared/contract'
import type { AgentProfile } from '../../src-shared/providers'
import { addUsage, NO_USAGE, responseTotal, type UsageTotal } from '../../src-shared/usage'
import type { Asker } from '../approvals/askers'
import type { ChatService } from '../chats/chat-service'
import type { ConversationRepository } from '../db/conversation-repository'
import type { PreferencesService } from '../preferences/preferences-service'
import { TASK_TOOL } from '../tools/builtin/task'
import { ToolError } from '../tools/errors'
import type { ToolRegistry } from '../tools/registry'
import type { SubagentCall } from '../tools/scheduler/scheduler'
import type { SubagentHost, SubagentTask, ToolOutput } from '../tools/types'
import type { AgentProfileService } from './agent-profiles'
import type { StartedTurn, TurnRequest } from './turn-service'

export interface SubagentServiceDeps {
  chats: ChatService
  profiles: AgentProfileService
  preferences: PreferencesService
  registry: ToolRegistry
  conversation: ConversationRepository
  /** Begins a turn (TurnService.begin): the child's. */
  begin: (request: TurnRequest) => StartedTurn
  /** Told when a child turn has ended, before its answer goes back (the SubagentStop hooks). */
  subagentEnded?: (end: {
    parent: Chat
    agent: string
    status: TurnStatus
    signal: AbortSignal
  }) => Promise<void>
}

/** The turn whose calls run subagents: its chat, what it was started with, its mode now, its stream. */
export interface ParentTurn {
  chat: Chat
  request: Pick<TurnRequest, 'provider' | 'maxIterations' | 'contextWindow'>
  /** The mode the turn is in now (an approved plan changes it mid-turn). */
  approvalMode: () => ApprovalMode
  emit: (event: TurnEvent) => void
}

export class SubagentService {
  constructor(private readonly deps: SubagentServiceDeps) {}

  /** Subagents for each call of a turn (the scheduler's `subagents`). */
  forTurn(parent: ParentTurn): (call: SubagentCall) => SubagentHost {
    return (call) => ({
      kindOf: (agent) => this.kindOf(this.delegable(agent), parent.chat, call.offered),
      run: (task, signal) => this.run(parent, call, task, signal),
    })
  }

  /** `read` when the child is offered only reading tools. */
  private kindOf(profile: AgentProfile, parent: Chat, offered: ReadonlySet<string>) {
    const tools = this.childTools(profile, parent, offered)
    const readsOnly = [...tools].every((name) => this.deps.registry.get(name)?.tool.kind === 'read')
    return readsOnly ? 'read' : 'other'
  }

  /**
   * The profile's tools among those the parent turn was offered; `task` only where the depth
   * setting lets a subagent start its own (never below that).
   */
  private childTools(profile: AgentProfile, parent: Chat, offered: ReadonlySet<string>): Set<string> {
    const depth = parent.parentChatId === undefined ? 1 : 2
    const allowed = profile.tools && new Set(profile.tools)
    return new Set(
      [...offered].filter(
        (name) =>
          (!allowed || allowed.has(name)) &&
          (name !== TASK_TOOL || depth < this.deps.preferences.get().subagentDepth),
      ),
    )
  }

  private delegable(name: string): AgentProfile {
    const profiles = this.deps.profiles.delegable()
    const profile = profiles.find((candidate) => candidate.name === name)
    if (!profile) {
      const names = profiles.map((candidate) => candidate.name).join(', ') || 'none'
      throw new ToolError('not_found', `No agent profile named "${name}" takes tasks. Profiles: ${names}.`)
    }
    return profile
  }

  private async run(
    parent: ParentTurn,
    call: SubagentCall,
    task: SubagentTask,
    signal: AbortSignal,
  ): Promise<ToolOutput> {
    const profile = this.delegable(task.agent)
    const child = this.deps.chats.createChild(parent.chat, {
      callId: call.callId,
      agent: profile.id,
      title: task.description,
    })
    const label = { agent: profile.name, description: task.description }
    // Its questions wait in the parent chat's one line, labelled; a grandchild's keep their own label.
    const asker: Asker = {
      ask: (question, stop) =>
        call.ask({ ...question, chatId: parent.chat.id, subagent: question.subagent ?? label }, stop),
    }
    const { request } = parent
    const { done } = this.beginIn(child, {
      prompt: task.prompt,
      ...(request.provider && { provider: request.provider }),
      ...(request.maxIterations && { maxIterations: request.maxIterations }),
      ...(request.contextWindow && { contextWindow: request.contextWindow }),
      approvalMode: parent.approvalMode(),
      tools: this.childTools(profile, parent.chat, call.offered),
      asker,
      signal,
      onEvent: (event) =>
        parent.emit(
          event.type === 'subagent'
            ? event
            : { type: 'subagent', parentCallId: call.callId, chatId: child.id, event },
        ),
    })
    const turn = await done
    await this.deps.subagentEnded?.({ parent: parent.chat, agent: profile.name, status: turn.status, signal })
    return this.ended(child, turn, task, profile.name)
  }

  /** Begins the child's turn; a turn refused before it began (no provider) leaves no empty child chat. */
  private beginIn(child: Chat, request: Omit<TurnRequest, 'chatId'>): StartedTurn {
    try {
      return this.deps.begin({ chatId: child.id, ...request })
    } catch (error) {
      this.deps.chats.delete({ id: child.id })
      throw error
    }
  }

  /**
   * The call's result once the child turn has ended: its last answer, or why it has none; the
   * whole transcript stays in the child's chat.
   */
  private ended(child: Chat, turn: Turn, task: SubagentTask, agent: string): ToolOutput {
    const messages = this.deps.conversation.messages(child.id).filter((message) => message.turnId === turn.id)
    const answer = lastAnswer(messages)
    const status = turn.status === 'completed' || turn.status === 'stopped' ? turn.status : 'failed'
    const display = {
      kind: 'subagent',
      chatId: child.id,
      agent,
      description: task.description,
      status,
      usage: usageOf(messages),
      answer,
    } as const
    if (status === 'completed') {
      return { content: answer || 'The subagent ended without an answer.', display }
    }
    const why =
      status === 'stopped' ? 'was stopped before it finished' : `failed: ${turn.error ?? 'no reason given'}`
    return {
      content: `The subagent (${agent}) ${why}.${answer ? `\nIts last words:\n${answer}` : ''}`,
      isError: true,
      errorType: status === 'stopped' ? 'aborted' : 'execution_failed',
      display,
    }
  }
}

/** The text of the turn's last response that has any. */
function lastAnswer(messages: readonly ChatMessage[]): string {
  for (const message of [...messages].reverse()) {
    if (message.role !== 'assistant') continue
    const text = message.parts.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('')
    if (text.trim()) return text
  }
  return ''
}

/** Tokens and cost of the child's responses, and of its own subagents' (their results carry theirs). */
function usageOf(messages: readonly ChatMessage[]): UsageTotal {
  let total = NO_USAGE
  for (const message of messages) {
    if (message.usage) total = addUsage(total, responseTotal(message.usage))
    for (const part of message.parts) {
      if (part.type === 'tool_result' && part.display?.kind === 'subagent') {
        total = addUsage(total, part.display.usage)
      }
    }
  }
  return total
}
