import { createContext, useContext } from 'react'
import type { ElicitationAnswer, ElicitationRequest } from '../../../../src-shared/elicitation'
import type { ElicitationView } from './conversation'

/** What the servers' question cards deep in the list need from their chat. */
export interface ElicitationsContextValue {
  /** The questions by the tool call they came during. */
  byCall: Map<string, ElicitationView[]>
  /** Rejects with the error payload when the answer was refused (it does not fit the form). */
  answer(request: ElicitationRequest, answer: ElicitationAnswer): Promise<void>
  /** Where focus goes once the question is answered: back to the message box. */
  returnFocus(): void
}

export const ElicitationsContext = createContext<ElicitationsContextValue>({
  byCall: new Map(),
  answer: () => Promise.resolve(),
  returnFocus: () => undefined,
})

export function useElicitations(): ElicitationsContextValue {
  return useContext(ElicitationsContext)
}
