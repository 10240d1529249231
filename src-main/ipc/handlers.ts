import type { AppInfo } from '../../src-shared/contract'
import type { ChatService } from '../chats/chat-service'
import type { PreferencesService } from '../preferences/preferences-service'
import type { ToolSettingsService } from '../tools/tool-settings-service'
import type { ContractHandlers } from './dispatcher'

export interface HandlerServices {
  info: AppInfo
  chats: ChatService
  preferences: PreferencesService
  toolSettings: ToolSettingsService
  /** Whose settings the calls read and write. */
  user: string
}

/** Binds every contract method to the service that answers it. */
export function createHandlers({
  info,
  chats,
  preferences,
  toolSettings,
  user,
}: HandlerServices): ContractHandlers {
  return {
    'app.info': () => info,
    'chats.list': () => chats.list(),
    'chats.create': (request) => chats.create(request),
    'chats.rename': (request) => chats.rename(request),
    'chats.delete': (request) => chats.delete(request),
    'preferences.get': () => preferences.get(),
    'preferences.update': (request) => preferences.update(request),
    'tools.list': () => toolSettings.list(user),
    'tools.update': ({ name, ...body }) => toolSettings.update(user, name, body),
  }
}
