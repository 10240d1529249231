import type { Asker, AskResult } from '../../src-main/approvals/askers'
import type { ApprovalRequest } from '../../src-shared/approvals'

/** A person who answers each approval card with the next scripted answer, and remembers what was asked. */
export function person(...answers: ((request: ApprovalRequest) => AskResult)[]) {
  const asked: ApprovalRequest[] = []
  const asker: Asker = {
    ask: async (request) => {
      if (request.kind !== 'approval') throw new Error(`Unexpected ${request.kind} for ${request.tool}`)
      asked.push(request)
      const answer = answers.shift()
      if (!answer) throw new Error(`Unexpected card for ${request.tool}`)
      return answer(request)
    },
  }
  return { asker, asked }
}
