/**
 * Values made on first use and shared after. The provider SDKs load this way: together they cost
 * about a second at import, which every CLI call and app start would otherwise pay. Each SDK module
 * is loaded once per process; each adapter makes its client once.
 */
export function lazily<T>(make: () => Promise<T>): () => Promise<T> {
  let value: Promise<T> | undefined
  return () => {
    value ??= make()
    return value
  }
}

export const loadOpenAI = lazily(async () => (await import('openai')).default)
export const loadAnthropic = lazily(async () => (await import('@anthropic-ai/sdk')).default)
export const loadGoogleGenAI = lazily(async () => (await import('@google/genai')).GoogleGenAI)
