import type { ImageOutcome } from './conversation'
import { GeneratedImage } from './GeneratedImage'
import type { GeneratedImageRef } from './tool-display'

/** Images as they land (progress), then as the result lists them; a failed one says why. */
export function GeneratedImages({
  outcomes,
  saved,
}: {
  outcomes: ImageOutcome[]
  saved: GeneratedImageRef[]
}) {
  const entries: { key: string; path?: string; error?: string; label: string }[] =
    saved.length > 0
      ? saved.map((image, index) => ({
          key: image.path,
          path: image.path,
          label: `Generated image ${index + 1}`,
        }))
      : outcomes.map((outcome) => ({
          key: String(outcome.image),
          ...(outcome.path && { path: outcome.path }),
          ...(outcome.error && { error: outcome.error }),
          label: `Generated image ${outcome.image} of ${outcome.of}`,
        }))
  const failed = saved.length > 0 ? outcomes.filter((outcome) => outcome.status === 'failed') : []
  if (entries.length === 0 && failed.length === 0) return null
  return (
    <div className="generated-images">
      {entries.map((entry) =>
        entry.path ? (
          <GeneratedImage key={entry.key} path={entry.path} alt={entry.label} />
        ) : (
          <div key={entry.key} className="generated-image generated-image--failed" role="note">
            {entry.label} failed: {entry.error ?? 'no image'}
          </div>
        ),
      )}
      {failed.map((outcome) => (
        <div key={`failed-${outcome.image}`} className="generated-image generated-image--failed" role="note">
          Image {outcome.image} of {outcome.of} failed: {outcome.error ?? 'no image'}
        </div>
      ))}
    </div>
  )
}
