import { useEffect, useState } from 'react'
import { errorMessage } from '../../errors'
import { useApi } from './api-context'

/** One generated image, read through `images.read` and shown as a data: URL (nothing remote). */
export function GeneratedImage({ path, alt }: { path: string; alt: string }) {
  const api = useApi()
  const [source, setSource] = useState<{ url: string } | { error: string }>()
  useEffect(() => {
    let live = true
    api.images.read({ path }).then(
      ({ mimeType, base64 }) => live && setSource({ url: `data:${mimeType};base64,${base64}` }),
      (failure: unknown) => live && setSource({ error: errorMessage(failure) }),
    )
    return () => {
      live = false
    }
  }, [api, path])
  if (!source) {
    return (
      <div className="generated-image generated-image--loading" role="status">
        <span className="visually-hidden">Loading {alt}…</span>
      </div>
    )
  }
  if ('error' in source) {
    return (
      <div className="generated-image generated-image--failed" role="note">
        Could not show {alt}: {source.error}
      </div>
    )
  }
  return (
    <figure className="generated-image" title={path}>
      <img src={source.url} alt={alt} />
    </figure>
  )
}
