import type { AppInfo } from '../../src-shared/contract'
import type { ChatService } from '../chats/chat-service'
import type { PreferencesService } from '../preferences/preferences-service'
import type { ContractHandlers } from './dispatcher'

export interface HandlerServices {
  info: AppInfo
  chats: ChatService
  preferences: PreferencesService
}

/** Binds every contract method to the service that answers it. */
export function createHandlers({ info, chats, preferences }: HandlerServices): ContractHandlers {
  return {
    'app.info': () => info,
    'chats.list': () => chats.list(),
    'chats.create': (request) => chats.create(request),
    'chats.rename': (request) => chats.rename(request),
    'chats.delete': (request) => chats.delete(request),
    'preferences.get': () => preferences.get(),
    'preferences.update': (request) => preferences.update(request),
  }
}
