/**
 * The one contract between the renderer and the main process. Electron IPC, the web host's
 * WebSocket and the renderer's types all derive from these two maps: adding a method means adding
 * one entry here and one handler in `src-main/ipc/handlers.ts`.
 */
import { type Static, type TSchema, Type } from '@sinclair/typebox'
import { ToolSettingsDescriptor, ToolSettingsListResponse, UpdateToolSettingsBody } from './tools'

const Id = Type.String({ minLength: 1, maxLength: 100 })
const Title = Type.String({ minLength: 1, maxLength: 200, pattern: '\\S' })
const Empty = Type.Object({}, { additionalProperties: false })

export const ChatMode = Type.Union([Type.Literal('chat'), Type.Literal('agent')])
export type ChatMode = Static<typeof ChatMode>

export const Chat = Type.Object({
  id: Type.String(),
  title: Type.String(),
  /** `agent`: tools work in the bound folder; `chat`: the folder is not injected. */
  mode: ChatMode,
  workingDir: Type.Union([Type.String(), Type.Null()]),
  createdAt: Type.Number({ description: 'Unix epoch milliseconds' }),
  updatedAt: Type.Number({ description: 'Unix epoch milliseconds' }),
})
export type Chat = Static<typeof Chat>

export const Theme = Type.Union([Type.Literal('system'), Type.Literal('dark'), Type.Literal('light')])
export type Theme = Static<typeof Theme>

export const Preferences = Type.Object({ theme: Theme })
export type Preferences = Static<typeof Preferences>

export const AppInfo = Type.Object({
  name: Type.String(),
  version: Type.String(),
  dataDir: Type.String(),
})
export type AppInfo = Static<typeof AppInfo>

function method<Request extends TSchema, Response extends TSchema>(request: Request, response: Response) {
  return { request, response }
}

/** Request/response methods, named `namespace.action`; `window.atelier.namespace.action(request)`. */
export const methods = {
  'app.info': method(Empty, AppInfo),
  'chats.list': method(Empty, Type.Array(Chat)),
  'chats.create': method(Type.Object({ title: Type.Optional(Title) }, { additionalProperties: false }), Chat),
  'chats.rename': method(Type.Object({ id: Id, title: Title }, { additionalProperties: false }), Chat),
  'chats.delete': method(
    Type.Object({ id: Id }, { additionalProperties: false }),
    Type.Object({ id: Type.String() }),
  ),
  'preferences.get': method(Empty, Preferences),
  'preferences.update': method(Type.Partial(Preferences, { additionalProperties: false }), Preferences),
  'tools.list': method(Empty, ToolSettingsListResponse),
  /** Refused with `invalid_parameters`, `cannot_disable` or `unknown_tool`. */
  'tools.update': method(
    Type.Composite([Type.Object({ name: Id }), UpdateToolSettingsBody], { additionalProperties: false }),
    ToolSettingsDescriptor,
  ),
}

/** Main → renderer events, named `namespace.event`; `window.atelier.namespace.onEvent(listener)`. */
export const events = {
  'chats.changed': Type.Object({ chats: Type.Array(Chat) }),
  'preferences.changed': Preferences,
}

export type Methods = typeof methods
export type MethodName = keyof Methods
export type EventName = keyof typeof events
export type MethodRequest<M extends MethodName> = Static<Methods[M]['request']>
export type MethodResponse<M extends MethodName> = Static<Methods[M]['response']>
export type EventPayload<E extends EventName> = Static<(typeof events)[E]>

export const methodNames = Object.keys(methods) as MethodName[]
export const eventNames = Object.keys(events) as EventName[]

export function isMethodName(name: string): name is MethodName {
  return Object.hasOwn(methods, name)
}
