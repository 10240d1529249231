import { useEffect, useState } from 'react'
import type { AttachedImage } from '../../../../src-shared/attachments'
import { useApi } from './api-context'
import type { ComposerAttachment } from './attachments'

/**
 * An attached image, small: in the composer from the bytes it holds, in a sent message from the file
 * main saved (through `images.read`, as generated images are shown).
 */
export function AttachmentThumbnail({
  image,
}: {
  image: AttachedImage | Extract<ComposerAttachment, { kind: 'image' }>
}) {
  const api = useApi()
  const stored = 'path' in image ? image.path : undefined
  const [loaded, setLoaded] = useState<string>()
  useEffect(() => {
    if (!stored) return
    let live = true
    api.images.read({ path: stored }).then(
      ({ mimeType, base64 }) => live && setLoaded(`data:${mimeType};base64,${base64}`),
      // A file gone from the data folder leaves the chip with its name only.
      () => {},
    )
    return () => {
      live = false
    }
  }, [api, stored])
  const url = 'base64' in image ? `data:${image.mimeType};base64,${image.base64}` : loaded
  if (!url) return <span className="attachment-thumbnail attachment-thumbnail--loading" aria-hidden="true" />
  return <img className="attachment-thumbnail" src={url} alt={image.name} />
}
