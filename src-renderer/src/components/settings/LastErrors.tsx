/** The latest failures of a service or the broker, newest last, folded until opened. */
export function LastErrors({ errors }: { errors: string[] }) {
  if (errors.length === 0) return null
  return (
    <details className="service-errors">
      <summary>
        Last errors <span className="count">{errors.length}</span>
      </summary>
      <ol>
        {errors.map((line, index) => (
          // The same message may recur; its place in the list is what tells it apart.
          // biome-ignore lint/suspicious/noArrayIndexKey: the list only grows at its end and is replaced whole
          <li key={index}>
            <code>{line}</code>
          </li>
        ))}
      </ol>
    </details>
  )
}
