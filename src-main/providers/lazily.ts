/**
 * A value made on first use and shared after. The provider SDKs load this way: together they cost
 * about a second at import, which every CLI call and app start would otherwise pay.
 */
export function lazily<T>(make: () => Promise<T>): () => Promise<T> {
  let value: Promise<T> | undefined
  return () => {
    value ??= make()
    return value
  }
}
