/**
 * What making an image means to the layers that ask for one (the generate_image tool) without
 * knowing who makes it (the providers' image APIs).
 */
export type ImageQuality = 'auto' | 'low' | 'medium' | 'high'
export type ImageBackend = 'openai' | 'gemini'

export interface ImageRequest {
  model: string
  prompt: string
  quality: ImageQuality
  /** Files of one chat stay together. */
  chatId: string | null
  signal: AbortSignal
}

export interface SavedImage {
  path: string
  mimeType: string
  bytes: number
  /** The prompt as the model rewrote it, when it did (OpenAI). */
  revisedPrompt?: string
}

/** Generates and saves one image. */
export interface ImageGenerator {
  generate(request: ImageRequest): Promise<SavedImage>
}

/** Which API serves a model, by its name; undefined when none does. */
export function imageBackendFor(model: string): ImageBackend | undefined {
  if (/^(gpt-image|dall-e|chatgpt-image)/i.test(model)) return 'openai'
  if (/^gemini.*image/i.test(model)) return 'gemini'
  return undefined
}

/** Why a model name cannot make images, and which names can. */
export function unknownImageModel(model: string): string {
  return `"${model}" is not an image model Atelier knows: use an OpenAI one (gpt-image-…, dall-e-…) or a Gemini image model (gemini-…-image).`
}
