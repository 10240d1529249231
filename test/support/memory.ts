/**
 * Runs `call` while sampling this process's resident set every `everyMs`; returns its value and how
 * far the resident set grew at its peak, so work that buffers a whole file shows.
 */
export async function withMemorySampled<T>(
  call: () => Promise<T>,
  everyMs = 2,
): Promise<{ value: T; growth: number }> {
  const baseline = process.memoryUsage().rss
  let peak = baseline
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss)
  }, everyMs)
  try {
    const value = await call()
    return { value, growth: Math.max(peak, process.memoryUsage().rss) - baseline }
  } finally {
    clearInterval(sampler)
  }
}
