/** Agent profiles: a system prompt, the tools the agent may use and the mode a chat starts in. */
import { randomUUID } from 'node:crypto'
import { DEFAULT_APPROVAL_MODE } from '../../src-shared/approvals'
import { AtelierError } from '../../src-shared/errors'
import type { AgentProfile, CreateAgentProfileBody, UpdateAgentProfileBody } from '../../src-shared/providers'
import type { AtelierEvents } from '../core/events'
import type { AgentProfilesRepository } from '../db/agent-profiles-repository'

export const DEFAULT_PROFILE: AgentProfile = {
  id: 'default',
  name: 'Default',
  systemPrompt: [
    "You are Atelier's agent, working with a person on their project through tools.",
    'Look before you act: read and search the files that matter before you answer about them or change them.',
    'Prefer small, precise edits, and say plainly what you changed and what you found.',
    'When a tool call fails, read the message and correct the call rather than repeating it.',
  ].join('\n'),
  tools: null,
  defaultMode: 'agent',
  approvalMode: DEFAULT_APPROVAL_MODE,
  builtin: true,
  description: "Atelier's agent, with every enabled tool.",
  // The chat's own agent: a task hands work to a profile made for it (explore, general, the person's own).
  delegable: false,
}

export class AgentProfileService {
  constructor(
    private readonly repository: AgentProfilesRepository,
    private readonly events: AtelierEvents,
    private readonly now: () => number = Date.now,
  ) {}

  list(): AgentProfile[] {
    return [DEFAULT_PROFILE, ...this.repository.list()]
  }

  /** The profile a chat names; a chat whose profile was deleted falls back to the default. */
  forChat(id: string | null): AgentProfile {
    return (id !== null && id !== DEFAULT_PROFILE.id && this.repository.get(id)) || DEFAULT_PROFILE
  }

  get(id: string): AgentProfile {
    if (id === DEFAULT_PROFILE.id) return DEFAULT_PROFILE
    const profile = this.repository.get(id)
    if (!profile) throw new AtelierError('not_found', `No agent profile with id "${id}".`, { id })
    return profile
  }

  /** The profiles the agent may hand work to (the `task` tool), in list order. */
  delegable(): AgentProfile[] {
    return this.list().filter((profile) => profile.delegable)
  }

  /** The profile with exactly this name (names are unique and case-sensitive): the CLI's `--agent NAME`. */
  byName(name: string): AgentProfile {
    const profiles = this.list()
    const profile = profiles.find((candidate) => candidate.name === name)
    if (!profile) {
      const names = profiles.map((candidate) => candidate.name).join(', ')
      throw new AtelierError('not_found', `No agent profile named "${name}". Profiles: ${names}.`, { name })
    }
    return profile
  }

  create(body: CreateAgentProfileBody): AgentProfile {
    const name = body.name.trim()
    this.assertNameFree(name)
    const profile: AgentProfile = {
      id: randomUUID(),
      name,
      systemPrompt: body.systemPrompt,
      tools: body.tools ?? null,
      defaultMode: body.defaultMode ?? 'agent',
      approvalMode: body.approvalMode ?? DEFAULT_APPROVAL_MODE,
      builtin: false,
      description: body.description ?? '',
      delegable: body.delegable ?? false,
    }
    this.repository.save(profile, this.now())
    this.changed()
    return profile
  }

  update({ id, ...changes }: UpdateAgentProfileBody): AgentProfile {
    const profile = { ...this.editable(id), ...changes }
    profile.name = profile.name.trim()
    this.assertNameFree(profile.name, id)
    this.repository.save(profile, this.now())
    this.changed()
    return profile
  }

  delete({ id }: { id: string }): { id: string } {
    this.editable(id)
    this.repository.delete(id)
    this.changed()
    return { id }
  }

  /** A name picks a profile (`--agent NAME`), so two profiles may not share one. */
  private assertNameFree(name: string, exceptId?: string): void {
    if (this.list().some((profile) => profile.name === name && profile.id !== exceptId)) {
      throw new AtelierError(
        'agent_exists',
        `An agent profile named "${name}" exists already; choose another name.`,
        { name },
      )
    }
  }

  private editable(id: string): AgentProfile {
    const profile = this.get(id)
    if (profile.builtin) {
      throw new AtelierError(
        'builtin_profile',
        `The built-in profile "${profile.name}" cannot be changed or removed; create your own instead.`,
        { id },
      )
    }
    return profile
  }

  private changed(): void {
    this.events.emit('agents.changed', { agents: this.list() })
  }
}
