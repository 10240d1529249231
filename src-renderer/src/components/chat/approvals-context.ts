import { createContext, useContext } from 'react'
import type { ApprovalAnswer, ApprovalRequest } from '../../../../src-shared/approvals'
import type { ApprovalView } from './conversation'

/** What the approval cards deep in the list need from their chat. */
export interface ApprovalsContextValue {
  /** The cards by the tool call they belong to. */
  byCall: Map<string, ApprovalView[]>
  /** The card that may be answered now; the others queue behind it. */
  activeId: string | undefined
  /** Rejects with the error payload when the answer was refused. */
  answer(request: ApprovalRequest, answer: ApprovalAnswer): Promise<void>
  /** Where focus goes once the last waiting card is answered: back to the message box. */
  returnFocus(): void
}

export const ApprovalsContext = createContext<ApprovalsContextValue>({
  byCall: new Map(),
  activeId: undefined,
  answer: () => Promise.resolve(),
  returnFocus: () => undefined,
})

export function useApprovals(): ApprovalsContextValue {
  return useContext(ApprovalsContext)
}
