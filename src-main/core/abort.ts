/** Waits for `work`, or rejects with the signal's reason as soon as it aborts: work that ignores a stop cannot hold its caller. */
export function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    // Abandoned unwatched: a rejection of its own later (a card's wait stopped by the same signal)
    // would otherwise surface as an unhandled rejection.
    work.catch(() => {})
    return Promise.reject(signal.reason)
  }
  return new Promise((resolve, reject) => {
    const stop = () => reject(signal.reason)
    signal.addEventListener('abort', stop, { once: true })
    work.then(
      (value) => {
        signal.removeEventListener('abort', stop)
        resolve(value)
      },
      (error: unknown) => {
        signal.removeEventListener('abort', stop)
        reject(error)
      },
    )
  })
}
