/** Providers (where a model runs) and agent profiles (how it behaves), as the settings panel edits them. */
import { type Static, Type } from '@sinclair/typebox'
import { ChatMode, ProviderKind } from './agent'

const Name = Type.String({ minLength: 1, maxLength: 100, pattern: '\\S' })
const OptionalUrl = Type.Union([Type.String({ pattern: '^https?://\\S+$', maxLength: 2000 }), Type.Null()])
const ModelName = Type.String({ minLength: 1, maxLength: 200 })

export const ProviderInfo = Type.Object({
  id: Type.String(),
  kind: ProviderKind,
  name: Type.String(),
  /** null: the provider's public endpoint. */
  baseUrl: Type.Union([Type.String(), Type.Null()]),
  defaultModel: Type.Union([Type.String(), Type.Null()]),
  /** Where the API key comes from; the key itself never leaves the main process. */
  keySource: Type.Union([Type.Literal('stored'), Type.Literal('environment'), Type.Literal('none')]),
  /** The environment variable read when no key is stored. */
  keyVariable: Type.String(),
})
export type ProviderInfo = Static<typeof ProviderInfo>

export const KeyStorage = Type.Object({
  /** Whether keys can be stored at all (the desktop app with an OS keychain). */
  available: Type.Boolean(),
  /** The OS offers no keychain, so "encrypted" keys would be readable by anyone with the file. */
  plainText: Type.Boolean(),
})
export type KeyStorage = Static<typeof KeyStorage>

export const ProvidersList = Type.Object({ providers: Type.Array(ProviderInfo), keyStorage: KeyStorage })

export const CreateProviderBody = Type.Object(
  {
    kind: ProviderKind,
    name: Name,
    baseUrl: Type.Optional(OptionalUrl),
    defaultModel: Type.Optional(Type.Union([ModelName, Type.Null()])),
    /** Stored encrypted; omit to use the environment variable. */
    apiKey: Type.Optional(Type.String({ minLength: 1, maxLength: 1000 })),
  },
  { additionalProperties: false },
)
export type CreateProviderBody = Static<typeof CreateProviderBody>

export const UpdateProviderBody = Type.Object(
  {
    id: Type.String({ minLength: 1 }),
    name: Type.Optional(Name),
    baseUrl: Type.Optional(OptionalUrl),
    defaultModel: Type.Optional(Type.Union([ModelName, Type.Null()])),
    /** A new key to store, or null to forget the stored one and use the environment again. */
    apiKey: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 1000 }), Type.Null()])),
  },
  { additionalProperties: false },
)
export type UpdateProviderBody = Static<typeof UpdateProviderBody>

export const AgentProfile = Type.Object({
  id: Type.String(),
  name: Type.String(),
  systemPrompt: Type.String(),
  /** The tools this profile may use, among the enabled ones; null: every enabled tool. */
  tools: Type.Union([Type.Array(Type.String()), Type.Null()]),
  defaultMode: ChatMode,
  /** The built-in profile cannot be edited or deleted. */
  builtin: Type.Boolean(),
})
export type AgentProfile = Static<typeof AgentProfile>

const ProfileFields = {
  name: Name,
  systemPrompt: Type.String({ maxLength: 100_000 }),
  tools: Type.Union([
    Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { maxItems: 500 }),
    Type.Null(),
  ]),
  defaultMode: ChatMode,
}
export const CreateAgentProfileBody = Type.Object(
  { ...ProfileFields, tools: Type.Optional(ProfileFields.tools), defaultMode: Type.Optional(ChatMode) },
  { additionalProperties: false },
)
export type CreateAgentProfileBody = Static<typeof CreateAgentProfileBody>
export const UpdateAgentProfileBody = Type.Object(
  { id: Type.String({ minLength: 1 }), ...Type.Partial(Type.Object(ProfileFields)).properties },
  { additionalProperties: false },
)
export type UpdateAgentProfileBody = Static<typeof UpdateAgentProfileBody>
