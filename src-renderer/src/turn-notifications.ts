/**
 * Desktop notifications of turns while the window is not in front: a turn finished, failed, or a
 * call waits for the person. The renderer decides, as only it knows whether the window is seen, and
 * uses the web Notification API — OS notifications in Electron, the browser's in the web host.
 * A notification says the chat's title (masked: see `notificationTitle`) and a fixed phrase (the
 * tool's name for an approval): never a file's content, an answer, a command or anything else the
 * turn read or wrote.
 */
import { useEffect, useRef } from 'react'
import type { TurnEvent } from '../../src-shared/agent'
import type { AtelierApi } from '../../src-shared/api'
import type { Chat } from '../../src-shared/contract'
import { type NotificationSettings, notificationTitle } from '../../src-shared/notifications'

export interface TurnNotice {
  kind: keyof NotificationSettings
  /** What happened, in a fixed phrase: the notification's body under the chat's title. */
  phrase: string
  /** One notification per chat and occasion: a call's wait is told once. */
  key: string
}

/** What an event of a chat's turn is worth telling, if anything (a subagent's wait is its parent chat's). */
export function noticeFor(event: TurnEvent): TurnNotice | undefined {
  const own = event.type === 'subagent' ? event.event : event
  switch (own.type) {
    case 'turn_completed':
      if (event.type === 'subagent') return undefined
      return {
        kind: 'finished',
        phrase: own.status === 'stopped' ? 'The turn was stopped.' : 'The turn finished.',
        key: own.turnId,
      }
    case 'turn_error':
      if (event.type === 'subagent') return undefined
      return { kind: 'failed', phrase: 'The turn failed.', key: own.turnId }
    case 'tool_call': {
      const { call } = own
      const key = `${call.chatId} ${call.turnId} ${call.id} ${call.status}`
      if (call.status === 'awaiting_approval') {
        return { kind: 'waiting', phrase: `Needs your approval for ${call.name}.`, key }
      }
      if (call.status === 'awaiting_input') return { kind: 'waiting', phrase: 'Has a question for you.', key }
      return undefined
    }
    default:
      return undefined
  }
}

/** Whether the person is looking elsewhere: the page is hidden, or the window is not focused. */
function windowUnseen(): boolean {
  return document.visibilityState === 'hidden' || !document.hasFocus()
}

/**
 * Raises a notification for each turn event worth one, of the chats listed, while the window is
 * not seen and the kind is on; clicking one brings the window forward at that chat.
 */
export function useTurnNotifications(
  api: AtelierApi,
  chats: readonly Chat[],
  settings: NotificationSettings | undefined,
  openChat: (chatId: string) => void,
): void {
  const current = useRef({ chats, settings, openChat })
  current.current = { chats, settings, openChat }

  useEffect(() => {
    if (typeof Notification === 'undefined') return
    const told = new Set<string>()
    return api.turns.onEvent(({ chatId, event }) => {
      const notice = noticeFor(event)
      const { chats, settings, openChat } = current.current
      const chat = chats.find((each) => each.id === chatId)
      if (!notice || !chat || !settings?.[notice.kind] || told.has(notice.key)) return
      if (Notification.permission !== 'granted' || !windowUnseen()) return
      told.add(notice.key)
      const notification = new Notification(notificationTitle(chat.title), {
        body: notice.phrase,
        tag: chatId,
      })
      notification.onclick = () => {
        window.focus()
        openChat(chatId)
        notification.close()
      }
    })
  }, [api])
}
