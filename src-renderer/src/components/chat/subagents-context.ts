import { createContext, useContext } from 'react'
import type { SubagentView } from './conversation'

/** What each subagent streamed, by the `task` call it runs for: its task card shows it live. */
export const SubagentsContext = createContext<Record<string, SubagentView>>({})

export function useSubagent(callId: string): SubagentView | undefined {
  return useContext(SubagentsContext)[callId]
}
