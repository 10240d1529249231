import { createContext, useContext } from 'react'
import type { AssistantPart } from './conversation'

/** What the conversation's messages can do to the chat: edit a prompt, regenerate, fork. */
export interface MessageActionsValue {
  /** A turn runs: nothing branches until it ends. */
  running: boolean
  /** The conversation's last response, when its turn is the latest: Regenerate shows on it. */
  lastResponse: AssistantPart[] | undefined
  /** Sends `prompt` in place of the prompt of `turnId`; rejects with why it was refused. */
  edit(turnId: string, prompt: string): Promise<void>
  /** Runs the prompt of `turnId` again. */
  regenerate(turnId: string): void
  /**
   * Opens a new chat holding the conversation through `turnId`; `withFiles` also sets the folder
   * back to how it was when that turn ended.
   */
  fork(turnId: string, withFiles?: boolean): void
  /** Whether the agent changed the folder after `turnId`: only then is there a "Fork with files". */
  filesChangedAfter(turnId: string): boolean
}

export const MessageActionsContext = createContext<MessageActionsValue>({
  running: false,
  lastResponse: undefined,
  edit: async () => {},
  regenerate: () => {},
  fork: () => {},
  filesChangedAfter: () => false,
})

export function useMessageActionsContext(): MessageActionsValue {
  return useContext(MessageActionsContext)
}
