/**
 * The one way a turn asks its person anything — an approval, a change a tool proposes, an MCP
 * server's form: questions wait in line and are put to the person one at a time, the call that
 * came first in its response first. So the card a person answers is always the only one asking.
 */
import type { Question } from '../../../src-shared/questions'
import { untilAborted } from '../../core/abort'
import type { AskResult } from '../types'

/** Whoever answers a turn's questions: the app's chat view, a terminal prompt, nobody (see approvals/askers.ts). */
export interface Asker {
  /** Puts the question to the person and waits for the answer; rejects when the signal stops the wait. */
  ask(question: Question, signal: AbortSignal): Promise<AskResult>
  /**
   * The answer where nobody can be asked (a run without a terminal, a form in a headless run), given
   * at once: the question is never shown, and the call does not wait.
   */
  answerAtOnce?(question: Question): AskResult | undefined
}

/** The answer, how long the call waited for it, and whether a person was asked at all. */
export interface Asked {
  answer: AskResult
  waitedMs: number
  asked: boolean
}

interface Waiting {
  index: number
  turn(): void
}

export class QuestionLine {
  private readonly line: Waiting[] = []
  private asking = false

  constructor(private readonly asker: Asker) {}

  /**
   * Asks once every question ahead of this one is answered: `shown` is told when it is put to the
   * person. Where nobody can be asked, the asker's answer comes at once, nothing shown. Rejects with
   * the signal's reason when the call is stopped first.
   */
  async ask(index: number, question: Question, signal: AbortSignal, shown: () => void): Promise<Asked> {
    const atOnce = this.asker.answerAtOnce?.(question)
    if (atOnce) return { answer: atOnce, waitedMs: 0, asked: false }
    const started = performance.now()
    await this.turnOf(index, signal)
    try {
      // Asked before it is shown, so an answer to what is shown finds the question waiting.
      const answered = this.asker.ask(question, signal)
      shown()
      const answer = await untilAborted(answered, signal)
      return { answer, waitedMs: performance.now() - started, asked: true }
    } finally {
      this.asking = false
      this.next()
    }
  }

  private turnOf(index: number, signal: AbortSignal): Promise<void> {
    signal.throwIfAborted()
    return new Promise((resolve, reject) => {
      const waiting: Waiting = {
        index,
        turn: () => {
          signal.removeEventListener('abort', stop)
          resolve()
        },
      }
      const stop = () => {
        this.line.splice(this.line.indexOf(waiting), 1)
        reject(signal.reason)
      }
      signal.addEventListener('abort', stop, { once: true })
      const after = this.line.findIndex((other) => other.index > index)
      this.line.splice(after === -1 ? this.line.length : after, 0, waiting)
      this.next()
    })
  }

  private next(): void {
    if (this.asking) return
    const first = this.line.shift()
    if (!first) return
    this.asking = true
    first.turn()
  }
}
