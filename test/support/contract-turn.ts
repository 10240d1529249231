import type { Atelier } from '../../src-main/app/create-atelier'
import type { Turn } from '../../src-shared/agent'

/**
 * A turn started through the contract, as the app starts one, run to its end: the refusal when
 * `turns.start` refuses, else the finished turn. Waits at most `timeoutMs` for it to end.
 */
export async function turnThroughContract(
  atelier: Atelier,
  request: Record<string, unknown>,
  timeoutMs = 15_000,
) {
  const started = await atelier.dispatch('turns.start', request)
  if (!started.ok) return { error: started.error }
  const { turnId } = started.value as { turnId: string }
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const turn = atelier.agent
      .conversation({ id: String(request.chatId) })
      .turns.find(({ id }) => id === turnId)
    if (turn && turn.status !== 'running') return { turn: turn as Turn }
    if (Date.now() > deadline) {
      throw new Error(`Turn ${turnId} was still ${turn?.status ?? 'missing'} after ${timeoutMs} ms.`)
    }
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}
