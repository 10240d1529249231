/** Waits for `work`, or rejects with the signal's reason as soon as it aborts: work that ignores a stop cannot hold its caller. */
export function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  // Once stopped, how the work ends no longer matters: its failure must not go unhandled.
  work.catch(() => {})
  if (signal.aborted) return Promise.reject(signal.reason)
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
