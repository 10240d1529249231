import { createContext, useContext } from 'react'
import type { ApprovalAnswer, ApprovalRequest } from '../../../../src-shared/approvals'
import type { ElicitationAnswer, ElicitationRequest } from '../../../../src-shared/elicitation'
import type { ApprovalView, ElicitationView } from './conversation'

/** What the approval cards (and MCP servers' question cards) deep in the list need from their chat. */
export interface ApprovalsContextValue {
  /** The cards by the tool call they belong to. */
  byCall: Map<string, ApprovalView[]>
  /** The card that may be answered now; the others queue behind it. */
  activeId: string | undefined
  /** Rejects with the error payload when the answer was refused. */
  answer(request: ApprovalRequest, answer: ApprovalAnswer): Promise<void>
  /** Where focus goes once the last waiting card is answered: back to the message box. */
  returnFocus(): void
  /** MCP servers' questions (elicitation) by the tool call they came during. */
  questionsByCall: Map<string, ElicitationView[]>
  /** Rejects with the error payload when the answer was refused (it does not fit the form). */
  answerQuestion(request: ElicitationRequest, answer: ElicitationAnswer): Promise<void>
}

export const ApprovalsContext = createContext<ApprovalsContextValue>({
  byCall: new Map(),
  activeId: undefined,
  answer: () => Promise.resolve(),
  returnFocus: () => undefined,
  questionsByCall: new Map(),
  answerQuestion: () => Promise.resolve(),
})

export function useApprovals(): ApprovalsContextValue {
  return useContext(ApprovalsContext)
}
