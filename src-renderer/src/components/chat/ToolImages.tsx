import type { DisplayImage, ImageReport as ImageOutcome } from '../../../../src-shared/tools'
import { GeneratedImage } from './GeneratedImage'

interface ToolImagesProps {
  /** The tool's name, for the alt text of the images it returned. */
  name: string
  /** Images as they landed while the call ran (generate_image reports each). */
  outcomes: ImageOutcome[]
  /** The images of the result's display: files Atelier saved, or bytes the tool returned. */
  images: DisplayImage[]
}

/** A call's images as they land, then as its result shows them; a failed one says why. */
export function ToolImages({ name, outcomes, images }: ToolImagesProps) {
  if (images.length === 0 && outcomes.length === 0) return null
  const failed = images.length > 0 ? outcomes.filter((outcome) => outcome.status === 'failed') : []
  return (
    <div className="generated-images">
      {images.length > 0
        ? images.map((image, index) =>
            'path' in image ? (
              <GeneratedImage key={image.path} path={image.path} alt={`Generated image ${index + 1}`} />
            ) : (
              <img
                // biome-ignore lint/suspicious/noArrayIndexKey: the images of one result never move
                key={index}
                className="tool-inline-image"
                src={`data:${image.mimeType};base64,${image.data}`}
                alt={`Returned by ${name} (${index + 1} of ${images.length})`}
              />
            ),
          )
        : outcomes.map((outcome) =>
            outcome.path ? (
              <GeneratedImage
                key={outcome.image}
                path={outcome.path}
                alt={`Generated image ${outcome.image} of ${outcome.of}`}
              />
            ) : (
              <div key={outcome.image} className="generated-image generated-image--failed" role="note">
                Generated image {outcome.image} of {outcome.of} failed: {outcome.error ?? 'no image'}
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
