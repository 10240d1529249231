/** The model is on it but nothing has streamed yet. */
export function WorkingIndicator({ label }: { label: string }) {
  return (
    <p className="working" role="status">
      <span className="working-dots" aria-hidden="true">
        <span />
        <span />
        <span />
      </span>
      {label}
    </p>
  )
}
