import { createContext, useContext } from 'react'
import type { Answer, Question } from '../../../../src-shared/questions'

/** What a call's card needs from its chat to put a question to the person and send the answer. */
export interface QuestionsContextValue {
  /** Rejects with the error payload when the answer was refused. */
  answer(question: Question, answer: Answer): Promise<void>
  /** Where focus goes once a question is answered: back to the message box. */
  returnFocus(): void
}

export const QuestionsContext = createContext<QuestionsContextValue>({
  answer: () => Promise.resolve(),
  returnFocus: () => undefined,
})

export function useQuestions(): QuestionsContextValue {
  return useContext(QuestionsContext)
}
