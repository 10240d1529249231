/**
 * generate_image: makes images during a text turn. The plan (count, quality, model) is settled
 * first, from the arguments within the person's settings; then each image is requested on its own,
 * side by side, its outcome streamed as progress, and all of them summed up in one result that
 * names files — the model never receives the image bytes.
 */
import { type Static, Type } from '@sinclair/typebox'
import { errorMessage } from '../../../src-shared/errors'
import { type ImageQuality, imageBackendFor, type SavedImage, unknownImageModel } from '../../core/images'
import { defineTool } from '../define-tool'
import { ToolError } from '../errors'
import { registerTool } from '../registry'
import { clampIntegerSetting, getStringSetting, integerParameter, TIMEOUT_SECONDS } from '../settings-policy'
import type { EffectiveToolSettings, RegisteredTool, ToolContext, ToolOutput } from '../types'

const QUALITIES = ['auto', 'low', 'medium', 'high'] as const
const MAX_IMAGES = { min: 1, max: 4, fallback: 4 }
export const DEFAULT_IMAGE_MODEL = 'gpt-image-1'

const Quality = Type.Union(
  QUALITIES.map((quality) => Type.Literal(quality)),
  { description: 'Rendering quality: higher is slower. auto lets the image model choose.' },
)

const Parameters = Type.Object(
  {
    prompt: Type.String({
      minLength: 1,
      maxLength: 32_000,
      description: 'What the image shows, in detail: subject, style, composition, colours, text in it.',
    }),
    count: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 4, description: 'How many images (default 1).' }),
    ),
    quality: Type.Optional(Quality),
    model: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description: 'Image model; default: the one in settings.',
      }),
    ),
  },
  { additionalProperties: false },
)
type Parameters = Static<typeof Parameters>

export interface GenerateImageToolPlan {
  prompt: string
  model: string
  quality: ImageQuality
  count: number
  /** What the plan changed from the request, said to the model. */
  notes: string[]
}

/** The images one call will make: the request, within the person's settings. */
export function createGenerateImageToolPlan(
  args: Parameters,
  settings: EffectiveToolSettings,
): GenerateImageToolPlan {
  const { parameters } = settings
  const notes: string[] = []
  const maxImages = clampIntegerSetting(parameters.maxImagesPerCall, MAX_IMAGES)
  const requested = args.count ?? 1
  const count = Math.min(requested, maxImages)
  if (count < requested)
    notes.push(`Asked for ${requested} images; the settings allow ${maxImages} per call.`)

  const defaultQuality = asQuality(parameters.defaultQuality)
  let quality = defaultQuality
  if (args.quality) {
    if (parameters.letAiDecideQuality !== false) quality = args.quality
    else if (args.quality !== defaultQuality)
      notes.push(`Quality is set to ${defaultQuality} in the settings.`)
  }

  const model = args.model ?? getStringSetting(parameters.defaultModel, DEFAULT_IMAGE_MODEL)
  if (!imageBackendFor(model)) throw new ToolError('validation_failed', unknownImageModel(model))
  return { prompt: args.prompt, model, quality, count, notes }
}

function asQuality(value: unknown): ImageQuality {
  return QUALITIES.find((quality) => quality === value) ?? 'auto'
}

type Outcome = { image: number } & (
  | { status: 'saved'; saved: SavedImage }
  | { status: 'failed'; error: string }
)

async function execute(args: Parameters, context: ToolContext): Promise<ToolOutput> {
  const plan = createGenerateImageToolPlan(args, context.settings)
  const generator = context.images
  if (!generator)
    throw new ToolError('execution_failed', 'Image generation is not available in this Atelier.')
  const outcomes = await Promise.all(
    Array.from({ length: plan.count }, async (_, index): Promise<Outcome> => {
      const image = index + 1
      let outcome: Outcome
      try {
        const saved = await generator.generate({ ...plan, chatId: context.chatId, signal: context.signal })
        outcome = { image, status: 'saved', saved }
      } catch (error) {
        if (context.signal.aborted) throw error
        outcome = { image, status: 'failed', error: errorMessage(error) }
      }
      context.onUpdate(
        outcome.status === 'saved'
          ? {
              kind: 'image',
              image,
              of: plan.count,
              status: 'saved',
              path: outcome.saved.path,
              mimeType: outcome.saved.mimeType,
            }
          : { kind: 'image', image, of: plan.count, status: 'failed', error: outcome.error },
      )
      return outcome
    }),
  )
  const saved = outcomes.flatMap((o) => (o.status === 'saved' ? [{ image: o.image, ...o.saved }] : []))
  const failed = outcomes.flatMap((o) => (o.status === 'failed' ? [{ image: o.image, error: o.error }] : []))
  const summary = {
    model: plan.model,
    quality: plan.quality,
    requested: plan.count,
    generated: saved.length,
    images: saved,
    ...(failed.length > 0 && { failed }),
    ...(plan.notes.length > 0 && { notes: plan.notes }),
  }
  const shown = saved.length > 0 ? ' They are shown to the user in the chat.' : ''
  return {
    content: `Generated ${saved.length} of ${plan.count} image(s).${shown}\n${JSON.stringify(summary, null, 2)}`,
    isError: saved.length === 0,
    ...(saved.length > 0 && {
      display: { kind: 'images', images: saved.map(({ path, mimeType }) => ({ path, mimeType })) },
    }),
  }
}

const GENERATE_IMAGE: RegisteredTool = defineTool({
  name: 'generate_image',
  description:
    'Creates images from a text prompt with an image model and shows them to the user. Returns the saved files (path, type, size) — not the pixels.',
  parameters: Parameters,
  // When the person fixes the quality, the model is not offered the choice.
  buildDefinition: (settings) => {
    const definition = GENERATE_IMAGE.definition
    if (settings.parameters.letAiDecideQuality !== false) return definition
    const { quality: _, ...properties } = Parameters.properties
    return { ...definition, parameters: { ...Parameters, properties } }
  },
  settings: {
    title: 'Generate images',
    description: 'Lets the model create images with OpenAI or Gemini image models, using your providers.',
    category: 'image',
    enabledByDefault: true,
    canDisable: true,
    defaultParameters: {
      timeoutSeconds: TIMEOUT_SECONDS.fallback,
      maxImagesPerCall: MAX_IMAGES.fallback,
      defaultQuality: 'auto',
      defaultModel: DEFAULT_IMAGE_MODEL,
      letAiDecideQuality: true,
    },
    parameterDescriptors: [
      integerParameter(
        'timeoutSeconds',
        'Timeout',
        'How long one call may take, all images together.',
        TIMEOUT_SECONDS,
        's',
      ),
      integerParameter(
        'maxImagesPerCall',
        'Images per call',
        'The most images one call may make.',
        MAX_IMAGES,
      ),
      {
        name: 'defaultQuality',
        type: 'enum',
        label: 'Quality',
        description: 'Used when the model does not choose, or always when it may not.',
        allowedValues: [...QUALITIES],
      },
      {
        name: 'defaultModel',
        type: 'string',
        label: 'Image model',
        description: 'gpt-image-1, dall-e-3, gemini-2.5-flash-image, …',
      },
      {
        name: 'letAiDecideQuality',
        type: 'boolean',
        label: 'Let the model choose quality',
        description: 'Off: every image uses the quality above.',
      },
    ],
  },
  // The prompt goes to OpenAI's or Google's image API.
  kind: 'network',
  describe: (args) => ({ summary: args.prompt.split('\n', 1)[0] ?? '', locations: [] }),
  execute,
})

registerTool(GENERATE_IMAGE)
