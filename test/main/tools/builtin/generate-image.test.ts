import { existsSync, readdirSync, readFileSync, realpathSync } from 'node:fs'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { afterEach, describe, expect, it } from 'vitest'
import {
  type Atelier,
  createAtelier,
  IMAGES_FOLDER,
  LOCAL_USER,
} from '../../../../src-main/app/create-atelier'
import { builtinTools } from '../../../../src-main/tools/builtin'
import {
  createGenerateImageToolPlan,
  DEFAULT_IMAGE_MODEL,
} from '../../../../src-main/tools/builtin/generate-image'
import { ToolError } from '../../../../src-main/tools/errors'
import type { ToolCallScope, ToolExecutionResult } from '../../../../src-main/tools/executor'
import { enabledToolDefinitions } from '../../../../src-main/tools/projection'
import { getDefaultToolSettings } from '../../../../src-main/tools/settings-policy'
import type { EffectiveToolSettings } from '../../../../src-main/tools/types'
import type { ToolResultPart } from '../../../../src-shared/agent'
import type { ToolProgress } from '../../../../src-shared/tools'
import { FAKE_ENV, useAgentFixture } from '../../../support/agent-harness'
import { FAKE_PNG, type FakeProvider, startFakeProvider } from '../../../support/fake-provider'
import { useTempDirs } from '../../../support/temp-dir'
import { progressReports, toolResults } from '../../../support/turn-events'

const TOOL = 'generate_image'
const BASE64 = FAKE_PNG.toString('base64')

type Progress = Extract<ToolProgress, { kind: 'image' }>

interface Summary {
  model: string
  quality: string
  requested: number
  generated: number
  images: { image: number; path: string; mimeType: string; bytes: number }[]
  failed?: { image: number; error: string }[]
  notes?: string[]
}

/** The JSON summary that follows the first line of the tool's content. */
function summaryOf(result: ToolExecutionResult): Summary {
  return JSON.parse(result.content.slice(result.content.indexOf('\n') + 1)) as Summary
}

function settingsWith(parameters: Record<string, unknown>): EffectiveToolSettings {
  const entry = builtinTools.get(TOOL)
  if (!entry) throw new Error('generate_image is not registered')
  const defaults = getDefaultToolSettings(entry.tool)
  return { enabled: true, parameters: { ...defaults.parameters, ...parameters } }
}

function filesIn(folder: string): string[] {
  return existsSync(folder) ? readdirSync(folder).map((name) => join(folder, name)) : []
}

describe('createGenerateImageToolPlan', () => {
  const defaults = settingsWith({})

  it('makes one image with the default model at auto quality when nothing more is asked', () => {
    expect(createGenerateImageToolPlan({ prompt: 'a red fox' }, defaults)).toEqual({
      prompt: 'a red fox',
      model: DEFAULT_IMAGE_MODEL,
      quality: 'auto',
      count: 1,
      notes: [],
    })
    expect(DEFAULT_IMAGE_MODEL).toBe('gpt-image-1')
  })

  it('clamps the count to maxImagesPerCall and says so in a note', () => {
    const plan = createGenerateImageToolPlan(
      { prompt: 'foxes', count: 4 },
      settingsWith({ maxImagesPerCall: 2 }),
    )
    expect(plan.count).toBe(2)
    expect(plan.notes).toEqual(['Asked for 4 images; the settings allow 2 per call.'])
  })

  it('keeps a count within the limit without a note', () => {
    const plan = createGenerateImageToolPlan(
      { prompt: 'foxes', count: 2 },
      settingsWith({ maxImagesPerCall: 2 }),
    )
    expect(plan).toMatchObject({ count: 2, notes: [] })
  })

  it('takes the quality from the arguments when the model may decide it', () => {
    const settings = settingsWith({ letAiDecideQuality: true, defaultQuality: 'low' })
    expect(createGenerateImageToolPlan({ prompt: 'fox', quality: 'high' }, settings)).toMatchObject({
      quality: 'high',
      notes: [],
    })
    // Without a choice from the model, the default applies.
    expect(createGenerateImageToolPlan({ prompt: 'fox' }, settings).quality).toBe('low')
  })

  it('uses defaultQuality, with a note, when the model may not decide it', () => {
    const settings = settingsWith({ letAiDecideQuality: false, defaultQuality: 'medium' })
    expect(createGenerateImageToolPlan({ prompt: 'fox', quality: 'high' }, settings)).toMatchObject({
      quality: 'medium',
      notes: ['Quality is set to medium in the settings.'],
    })
    // Asking for what is set anyway, or for nothing, changes nothing worth a note.
    expect(createGenerateImageToolPlan({ prompt: 'fox', quality: 'medium' }, settings).notes).toEqual([])
    expect(createGenerateImageToolPlan({ prompt: 'fox' }, settings)).toMatchObject({
      quality: 'medium',
      notes: [],
    })
  })

  it('defaults the model to defaultModel, and a model named in the arguments wins', () => {
    const settings = settingsWith({ defaultModel: 'gemini-2.5-flash-image' })
    expect(createGenerateImageToolPlan({ prompt: 'fox' }, settings).model).toBe('gemini-2.5-flash-image')
    expect(createGenerateImageToolPlan({ prompt: 'fox', model: 'dall-e-3' }, settings).model).toBe('dall-e-3')
  })

  it('refuses a model no image API serves, naming the models that work', () => {
    const refusal = () => createGenerateImageToolPlan({ prompt: 'fox', model: 'stable-diffusion' }, defaults)
    expect(refusal).toThrow(ToolError)
    try {
      refusal()
    } catch (error) {
      expect(error).toMatchObject({ code: 'validation_failed' })
      const { message } = error as Error
      expect(message).toContain('"stable-diffusion"')
      expect(message).toContain('gpt-image')
      expect(message).toContain('dall-e')
      expect(message).toMatch(/gemini-…-image|gemini-.*image/)
    }
  })

  it('refuses an unknown defaultModel from the settings the same way', () => {
    expect(() =>
      createGenerateImageToolPlan({ prompt: 'fox' }, settingsWith({ defaultModel: 'midjourney' })),
    ).toThrow(/"midjourney" is not an image model/)
  })
})

/** A real Atelier whose OpenAI and Gemini providers point at the fake; calls go through the executor. */
function useImageHarness() {
  const tempDir = useTempDirs()
  const cleanups: (() => unknown)[] = []
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
  })
  return async (options: { env?: NodeJS.ProcessEnv; providers?: boolean } = {}) => {
    const fake: FakeProvider = await startFakeProvider()
    cleanups.push(() => fake.close())
    const atelier: Atelier = createAtelier({ dataDir: tempDir(), env: options.env ?? FAKE_ENV })
    cleanups.push(() => atelier.close())
    if (options.providers !== false) {
      atelier.providers.create({
        kind: 'openai-responses',
        name: 'Fake OpenAI',
        baseUrl: fake.baseUrlFor('openai-responses'),
      })
      atelier.providers.create({ kind: 'gemini', name: 'Fake Gemini', baseUrl: fake.baseUrlFor('gemini') })
    }
    const project = realpathSync(tempDir())
    const chat = atelier.chats.ensure('image-chat', { workingDir: project, mode: 'agent' })
    const progress: Progress[] = []
    const scope: ToolCallScope = {
      chatId: chat.id,
      user: LOCAL_USER,
      workingDirectory: project,
      mode: 'agent',
      restrict: true,
      onUpdate: (update) => progress.push(update as Progress),
    }
    const run = (args: unknown, overrides: Partial<ToolCallScope> = {}) =>
      atelier.tools.executor.execute({ name: TOOL, arguments: args }, { ...scope, ...overrides })
    const imagesDir = join(atelier.dataDir, IMAGES_FOLDER, chat.id)
    const imageRequests = () => fake.requests.filter((request) => request.kind === 'images')
    const configure = (parameters: Record<string, unknown>) =>
      atelier.tools.settings.update(LOCAL_USER, TOOL, { parameters })
    return { atelier, fake, chat, scope, run, progress, imagesDir, imageRequests, configure }
  }
}

describe('generate_image through the executor', () => {
  const setup = useImageHarness()

  it('offers the model no quality choice when the settings fix the quality', async () => {
    const { atelier, configure } = await setup()
    const offered = () =>
      enabledToolDefinitions(atelier.tools.registry, atelier.tools.settings, LOCAL_USER).find(
        (definition) => definition.name === TOOL,
      )
    const properties = () =>
      Object.keys((offered()?.parameters as { properties?: object } | undefined)?.properties ?? {})

    expect(properties()).toEqual(['prompt', 'count', 'quality', 'model'])
    configure({ letAiDecideQuality: false })
    expect(properties()).toEqual(['prompt', 'count', 'model'])
    expect(offered()?.parameters).toMatchObject({ required: ['prompt'], additionalProperties: false })
    configure({ letAiDecideQuality: true })
    expect(properties()).toContain('quality')
  })

  it('makes three OpenAI images as files and tells the model their paths, never their bytes', async () => {
    const { run, progress, imagesDir, imageRequests } = await setup()
    const result = await run({ prompt: 'a lighthouse at dusk', count: 3, quality: 'high' })

    expect(result).toMatchObject({ isError: false, truncated: false })
    const files = filesIn(imagesDir)
    expect(files).toHaveLength(3)
    for (const file of files) {
      expect(file).toMatch(/\.png$/)
      expect(readFileSync(file).equals(FAKE_PNG)).toBe(true)
    }

    expect(result.content).toMatch(/^Generated 3 of 3 image\(s\)\./)
    expect(result.content).not.toContain(BASE64)
    expect(result.content.length).toBeLessThan(2000)
    const summary = summaryOf(result)
    expect(summary).toMatchObject({ model: 'gpt-image-1', quality: 'high', requested: 3, generated: 3 })
    expect(summary.failed).toBeUndefined()
    expect(summary.images.map((image) => image.path).sort()).toEqual([...files].sort())
    for (const image of summary.images) {
      expect(image).toMatchObject({ mimeType: 'image/png', bytes: FAKE_PNG.length })
      expect(result.content).toContain(image.path)
    }
    expect(summary.images.map((image) => image.image).sort()).toEqual([1, 2, 3])

    const shown = result.display?.kind === 'images' ? result.display.images : []
    expect(shown.map((image) => ('path' in image ? image.path : '')).sort()).toEqual([...files].sort())
    expect(shown.every((image) => image.mimeType === 'image/png')).toBe(true)

    expect(progress).toHaveLength(3)
    for (const update of progress) {
      expect(update).toMatchObject({ kind: 'image', of: 3, status: 'saved', mimeType: 'image/png' })
      expect(files).toContain(update.path)
    }
    expect(progress.map((update) => update.image).sort()).toEqual([1, 2, 3])

    const requests = imageRequests()
    expect(requests).toHaveLength(3)
    for (const request of requests) {
      expect(request.path).toBe('/v1/images/generations')
      expect(request.body).toMatchObject({
        model: 'gpt-image-1',
        prompt: 'a lighthouse at dusk',
        quality: 'high',
        n: 1,
      })
      // The provider points at a server of its own, so OPENAI_API_KEY from the environment stays home.
      expect(request.headers.authorization).not.toContain(FAKE_ENV.OPENAI_API_KEY)
    }
  })

  it('makes no more images than the settings allow and tells the model why', async () => {
    const { run, configure, imagesDir, imageRequests } = await setup()
    configure({ maxImagesPerCall: 2 })
    const result = await run({ prompt: 'two foxes', count: 4 })

    expect(result.isError).toBe(false)
    expect(result.content).toMatch(/^Generated 2 of 2 image\(s\)\./)
    expect(summaryOf(result).notes).toEqual(['Asked for 4 images; the settings allow 2 per call.'])
    expect(imageRequests()).toHaveLength(2)
    expect(filesIn(imagesDir)).toHaveLength(2)
  })

  it('sends the quality of the settings when the model may not choose it', async () => {
    const { run, configure, imageRequests } = await setup()
    configure({ letAiDecideQuality: false, defaultQuality: 'low' })
    const result = await run({ prompt: 'a fox', quality: 'high' })

    expect(result.isError).toBe(false)
    expect(summaryOf(result)).toMatchObject({
      quality: 'low',
      notes: ['Quality is set to low in the settings.'],
    })
    expect(imageRequests()[0]?.body).toMatchObject({ quality: 'low' })
  })

  it('asks DALL·E for base64 bytes rather than a URL, without a GPT-image quality', async () => {
    const { run, imagesDir, imageRequests } = await setup()
    const result = await run({ prompt: 'a fox', model: 'dall-e-3' })

    expect(result.isError).toBe(false)
    const body = imageRequests()[0]?.body
    expect(body).toMatchObject({ model: 'dall-e-3', prompt: 'a fox', response_format: 'b64_json' })
    expect(body).not.toHaveProperty('quality')
    expect(readFileSync(filesIn(imagesDir)[0] ?? '').equals(FAKE_PNG)).toBe(true)
  })

  it('reports a partial failure: the images that were made, and which one failed', async () => {
    const { fake, run, progress, imagesDir } = await setup()
    // A 400 is not retried (the client retries a 5xx once), so exactly one of the three fails.
    fake.enqueueImages({ status: 400 })
    const result = await run({ prompt: 'three foxes', count: 3 })

    expect(result.isError).toBe(false)
    expect(result.content).toMatch(/^Generated 2 of 3 image\(s\)\./)
    const summary = summaryOf(result)
    expect(summary).toMatchObject({ requested: 3, generated: 2 })
    expect(summary.images).toHaveLength(2)
    expect(summary.failed).toEqual([{ image: expect.any(Number), error: expect.stringContaining('400') }])
    const failedImage = summary.failed?.[0]?.image
    expect([1, 2, 3]).toContain(failedImage)
    expect(summary.images.map((image) => image.image)).not.toContain(failedImage)
    expect(filesIn(imagesDir)).toHaveLength(2)
    expect(result.display).toMatchObject({ kind: 'images', images: [{}, {}] })
    expect(progress.filter((update) => update.status === 'failed')).toEqual([
      { kind: 'image', of: 3, image: failedImage, status: 'failed', error: expect.stringContaining('400') },
    ])
    expect(progress.filter((update) => update.status === 'saved')).toHaveLength(2)
  })

  it('retries an image once after a server error, as the OpenAI client is set to', async () => {
    const { fake, run, imagesDir, imageRequests } = await setup()
    fake.enqueueImages({ status: 500 })
    const result = await run({ prompt: 'a fox' })

    expect(result.isError).toBe(false)
    expect(result.content).toMatch(/^Generated 1 of 1 image\(s\)\./)
    expect(imageRequests()).toHaveLength(2)
    expect(filesIn(imagesDir)).toHaveLength(1)
  })

  it('is an error result when every image fails, with no file written', async () => {
    const { fake, run, progress, imagesDir } = await setup()
    fake.enqueueImages({ status: 400 }, { status: 400 }, { status: 400 })
    const result = await run({ prompt: 'three foxes', count: 3 })

    expect(result).toMatchObject({ isError: true, errorType: 'execution_failed' })
    expect(result.content).toMatch(/^Generated 0 of 3 image\(s\)\.\n/)
    expect(result.content).not.toContain('shown to the user')
    const summary = summaryOf(result)
    expect(summary).toMatchObject({ generated: 0, images: [] })
    expect(summary.failed?.map((failure) => failure.image).sort()).toEqual([1, 2, 3])
    expect(result.display).toBeUndefined()
    expect(filesIn(imagesDir)).toEqual([])
    expect(progress.map((update) => update.status)).toEqual(['failed', 'failed', 'failed'])
  })

  it('refuses an unknown model before any request, naming the models that work', async () => {
    const { run, imageRequests, imagesDir } = await setup()
    const result = await run({ prompt: 'a fox', model: 'stable-diffusion' })

    expect(result).toMatchObject({ isError: true, errorType: 'validation_failed' })
    expect(result.content).toContain('"stable-diffusion"')
    expect(result.content).toContain('gpt-image')
    expect(result.content).toContain('dall-e')
    expect(imageRequests()).toEqual([])
    expect(filesIn(imagesDir)).toEqual([])
  })

  it('makes a Gemini image through generateContent and saves its bytes', async () => {
    const { run, imagesDir, imageRequests } = await setup()
    const result = await run({ prompt: 'a heron', model: 'gemini-2.5-flash-image' })

    expect(result.isError).toBe(false)
    expect(summaryOf(result)).toMatchObject({ model: 'gemini-2.5-flash-image', generated: 1 })
    const [file] = filesIn(imagesDir)
    expect(file).toMatch(/\.png$/)
    expect(readFileSync(file ?? '').equals(FAKE_PNG)).toBe(true)
    expect(result.content).not.toContain(BASE64)
    const [request] = imageRequests()
    expect(request?.path).toMatch(/\/models\/gemini-2\.5-flash-image:generateContent/)
    expect(JSON.stringify(request?.body)).toContain('a heron')
    expect(JSON.stringify(request?.body)).toContain('IMAGE')
  })

  it('keeps images made outside a chat in a folder of their own', async () => {
    const { atelier, run } = await setup()
    const result = await run({ prompt: 'a fox' }, { chatId: undefined })

    expect(result.isError).toBe(false)
    const files = filesIn(join(atelier.dataDir, IMAGES_FOLDER, 'outside-chats'))
    expect(files).toHaveLength(1)
    expect(result.content).toContain(files[0])
  })

  it('ends promptly as aborted when the call is stopped, and writes no file', async () => {
    const { fake, run, imagesDir, imageRequests } = await setup()
    // The fake holds its answer this long after the request arrives.
    const delayMs = 4000
    fake.enqueueImages({ delayMs })
    const stop = new AbortController()
    const calling = run({ prompt: 'a slow fox' }, { signal: stop.signal })
    // Loading the SDK may take a while on a slow machine; stop once the request is out.
    for (const started = performance.now(); imageRequests().length === 0; ) {
      if (performance.now() - started > 30_000) throw new Error('the image request never arrived')
      await sleep(10)
    }
    const arrived = performance.now()
    stop.abort(new Error('Stopped by the user.'))
    const result = await calling

    expect(result).toMatchObject({ isError: true, errorType: 'aborted' })
    expect(result.content).toContain('cancelled')
    // The call did not wait for the fake's answer.
    expect(performance.now() - arrived).toBeLessThan(delayMs - 1000)
    // Even once the fake has answered, nothing lands on disk.
    await sleep(Math.max(0, delayMs + 500 - (performance.now() - arrived)))
    expect(imageRequests()).toHaveLength(1)
    expect(filesIn(imagesDir)).toEqual([])
  })

  it('says which key is missing when no OpenAI provider or key exists', async () => {
    const { run, imagesDir, imageRequests } = await setup({ env: {}, providers: false })
    const result = await run({ prompt: 'a fox' })

    expect(result).toMatchObject({ isError: true })
    expect(result.content).toContain('OPENAI_API_KEY')
    expect(imageRequests()).toEqual([])
    expect(filesIn(imagesDir)).toEqual([])
  })

  it('works with an OpenAI provider on a local server that takes no key', async () => {
    // ProviderService accepts a provider with a base URL and no key ("a local server needs no key").
    const { run, imagesDir } = await setup({ env: {} })
    const result = await run({ prompt: 'a fox' })

    expect(result.content).toMatch(/^Generated 1 of 1 image\(s\)\./)
    expect(filesIn(imagesDir)).toHaveLength(1)
  })
})

describe('generate_image in a turn', () => {
  const setup = useAgentFixture()

  it('streams the paths to the UI, keeps them in the conversation, and sends the model no bytes', async () => {
    const { atelier, fake, chat, run } = await setup('openai-chat')
    atelier.providers.create({
      kind: 'openai-responses',
      name: 'Fake OpenAI images',
      baseUrl: fake.baseUrlFor('openai-responses'),
    })
    fake.enqueue(
      {
        toolCalls: [
          {
            id: 'call_image',
            name: TOOL,
            arguments: JSON.stringify({ prompt: 'a red kite', quality: 'low' }),
          },
        ],
      },
      { text: 'Here is your kite.' },
    )
    const { turn, events, messages } = await run('draw a red kite')

    expect(turn.status).toBe('completed')
    const files = filesIn(join(atelier.dataDir, IMAGES_FOLDER, chat.id))
    expect(files).toHaveLength(1)
    const [path] = files as [string]
    expect(readFileSync(path).equals(FAKE_PNG)).toBe(true)

    expect(progressReports(events)).toEqual([
      { id: 'call_image', progress: expect.objectContaining({ status: 'saved' }) },
    ])
    const [result] = toolResults(events)
    expect(result).toMatchObject({
      id: 'call_image',
      name: TOOL,
      isError: false,
      display: { kind: 'images', images: [{ path, mimeType: 'image/png' }] },
    })

    const stored = messages
      .flatMap((message) => message.parts)
      .find((part): part is ToolResultPart => part.type === 'tool_result')
    expect(stored).toMatchObject({
      callId: 'call_image',
      isError: false,
      display: { kind: 'images', images: [{ path, mimeType: 'image/png' }] },
    })
    expect(stored?.content).toContain(path)

    const [first, second] = fake.requestsOf('openai-chat')
    const tools: { function: { name: string } }[] = first?.body.tools ?? []
    const offered = tools.map((tool) => tool.function.name)
    expect(offered).toContain(TOOL)
    const sent = JSON.stringify(second?.body)
    expect(sent).toContain(path)
    expect(sent).not.toContain(BASE64)
    expect(sent).not.toContain('"display"')
    expect(sent).not.toContain('"data"')
    const image = fake.requests.find((request) => request.kind === 'images')
    expect(image?.body).toMatchObject({ prompt: 'a red kite', quality: 'low', model: 'gpt-image-1' })
  })

  it('offers the model no quality when the settings fix it', async () => {
    const { atelier, fake, run } = await setup('openai-chat')
    atelier.tools.settings.update(LOCAL_USER, TOOL, { parameters: { letAiDecideQuality: false } })
    fake.enqueue({ text: 'Nothing to draw.' })
    await run('hello')

    const tools = fake.requestsOf('openai-chat')[0]?.body.tools as {
      function: { name: string; parameters: { properties: object } }
    }[]
    const offered = tools.find((tool) => tool.function.name === TOOL)
    expect(offered).toBeDefined()
    expect(Object.keys(offered?.function.parameters.properties ?? {})).not.toContain('quality')
    expect(Object.keys(offered?.function.parameters.properties ?? {})).toContain('prompt')
  })
})
