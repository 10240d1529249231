/**
 * Cards waiting in the app for a person's answer, whatever they ask (an approval, an MCP server's
 * question): shown by chat to a page that reloads, answered once, and gone when their call stops.
 */
export class WaitingAnswers<Request extends { id: string; chatId: string }, Answer> {
  private readonly waiting = new Map<string, { request: Request; answer(answer: Answer): void }>()

  /** Waits for the card's answer; rejects with the signal's reason when the call stops first. */
  wait(request: Request, signal: AbortSignal): Promise<Answer> {
    return new Promise((resolve, reject) => {
      const stop = () => {
        this.waiting.delete(request.id)
        reject(signal.reason)
      }
      if (signal.aborted) return stop()
      signal.addEventListener('abort', stop, { once: true })
      this.waiting.set(request.id, {
        request,
        answer: (answer) => {
          signal.removeEventListener('abort', stop)
          this.waiting.delete(request.id)
          resolve(answer)
        },
      })
    })
  }

  /** The chat's waiting cards, oldest first. */
  pending(chatId: string): Request[] {
    return [...this.waiting.values()].flatMap(({ request }) => (request.chatId === chatId ? [request] : []))
  }

  /** The card, while it waits in that chat. */
  get(id: string, chatId: string): Request | undefined {
    const waiting = this.waiting.get(id)
    return waiting?.request.chatId === chatId ? waiting.request : undefined
  }

  /** False when the card no longer waits (answered, stopped) or is another chat's. */
  answer(id: string, chatId: string, answer: Answer): boolean {
    const waiting = this.waiting.get(id)
    if (!waiting || waiting.request.chatId !== chatId) return false
    waiting.answer(answer)
    return true
  }
}
