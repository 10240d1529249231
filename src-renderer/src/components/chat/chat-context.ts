import { createContext, useContext } from 'react'
import type { Chat } from '../../../../src-shared/contract'

/**
 * The chat on screen, for parts deep in the conversation that act on it: a grep match opens its
 * file in the chat's folder, an error's action opens the chat's provider in Settings.
 */
export const ChatContext = createContext<Chat | null>(null)

export function useChat(): Chat | null {
  return useContext(ChatContext)
}
