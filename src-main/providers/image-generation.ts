/**
 * Image generation for the generate_image tool: OpenAI Images and Gemini image models through their
 * SDKs, with the key and base URL of the person's providers. (Imagen is left out: @google/genai
 * serves it only on Vertex AI, not with a Gemini API key.) Every image is saved under the data
 * folder; the tool hands the model its path, never its bytes.
 */
import { randomUUID } from 'node:crypto'
import { mkdir, readFile, realpath, writeFile } from 'node:fs/promises'
import { extname, join, sep } from 'node:path'
import { AtelierError } from '../../src-shared/errors'
import {
  type ImageBackend,
  type ImageGenerator,
  type ImageRequest,
  imageBackendFor,
  type SavedImage,
  unknownImageModel,
} from '../core/images'
import { geminiClient } from './gemini'
import { loadOpenAI } from './lazily'
import { providerFailure, toProviderError } from './provider-error'
import type { ProviderService } from './provider-service'
import { NO_KEY } from './types'

export type { ImageGenerator, ImageRequest, SavedImage }

const EXTENSIONS: Record<string, string> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/webp': 'webp',
  // Generated images are never GIFs; pasted ones may be.
  'image/gif': 'gif',
}

interface GeneratedImage {
  data: Buffer
  mimeType: string
  revisedPrompt?: string
}

export class ProviderImageGenerator implements ImageGenerator {
  constructor(
    private readonly providers: ProviderService,
    private readonly imagesDir: string,
  ) {}

  async generate(request: ImageRequest): Promise<SavedImage> {
    const backend = imageBackendFor(request.model)
    if (!backend) throw new AtelierError('validation_failed', unknownImageModel(request.model))
    const kind = backend === 'openai' ? 'openai-responses' : 'gemini'
    let image: GeneratedImage
    try {
      image = await this.request(backend, request)
    } catch (error) {
      if (request.signal.aborted) throw error
      throw toProviderError(kind, error)
    }
    const saved = await this.save(request.chatId, image.data, image.mimeType)
    return { ...saved, ...(image.revisedPrompt && { revisedPrompt: image.revisedPrompt }) }
  }

  /**
   * Keeps an image with the chat's others (generated, or pasted into a prompt): the database holds
   * its path, `read` shows it.
   */
  async save(chatId: string | null, data: Buffer, mimeType: string): Promise<SavedImage> {
    const folder = join(this.imagesDir, chatId ?? 'outside-chats')
    await mkdir(folder, { recursive: true, mode: 0o700 })
    const name = `${new Date().toISOString().replace(/[:.]/g, '-')}-${randomUUID().slice(0, 8)}.${EXTENSIONS[mimeType] ?? 'png'}`
    const path = join(folder, name)
    await writeFile(path, data, { mode: 0o600 })
    return { path, mimeType, bytes: data.length }
  }

  /** A saved image, for the chat to show. Nothing outside the images folder is ever read. */
  async read(path: string): Promise<{ mimeType: string; base64: string }> {
    const mimeType = Object.entries(EXTENSIONS).find(
      ([, ext]) => `.${ext}` === extname(path).toLowerCase(),
    )?.[0]
    const real = await realpath(path).catch(() => undefined)
    const root = await realpath(this.imagesDir).catch(() => this.imagesDir)
    // Both are real paths, so a prefix that ends at a separator is containment.
    if (!mimeType || !real?.startsWith(root + sep)) {
      throw new AtelierError('not_found', `No generated image at "${path}".`, { path })
    }
    return { mimeType, base64: (await readFile(real)).toString('base64') }
  }

  private async request(
    backend: ImageBackend,
    { model, prompt, quality, signal }: ImageRequest,
  ): Promise<GeneratedImage> {
    if (backend === 'openai') {
      const { config } = this.providers.resolveKind('openai-responses', { model })
      const OpenAI = await loadOpenAI()
      const client = new OpenAI({
        apiKey: config.apiKey || NO_KEY,
        baseURL: config.baseUrl ?? null,
        maxRetries: 1,
      })
      const dallE = /^dall-e/i.test(model)
      const response = await client.images.generate(
        {
          model,
          prompt,
          n: 1,
          // DALL·E answers with a URL unless asked; GPT image models always send the bytes.
          ...(dallE ? { response_format: 'b64_json' as const } : { quality }),
        },
        { signal },
      )
      const first = response.data?.[0]
      if (!first?.b64_json) throw providerFailure('openai-responses', 'The response held no image.')
      return {
        data: Buffer.from(first.b64_json, 'base64'),
        mimeType: `image/${response.output_format ?? 'png'}`,
        ...(first.revised_prompt && { revisedPrompt: first.revised_prompt }),
      }
    }
    const { config } = this.providers.resolveKind('gemini', { model })
    const ai = await geminiClient(config)
    const response = await ai.models.generateContent({
      model,
      contents: prompt,
      config: { responseModalities: ['IMAGE'], abortSignal: signal },
    })
    const part = response.candidates?.[0]?.content?.parts?.find((p) => p.inlineData?.data)
    if (!part?.inlineData?.data) throw providerFailure('gemini', 'The response held no image.')
    return {
      data: Buffer.from(part.inlineData.data, 'base64'),
      mimeType: part.inlineData.mimeType ?? 'image/png',
    }
  }
}
