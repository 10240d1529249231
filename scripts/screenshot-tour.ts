/**
 * Takes the README's screenshot, docs/images/tour.png: the real app served by the web host, in
 * Chromium at 1280×860 in the light theme, with a chat bound to a small project where the agent
 * reads a file, edits it once the person allows it, and streams its answer. The model is the fake
 * provider the end-to-end tests use, so the picture is the same on every run.
 *
 * Run after `npm run build`: `node --import tsx scripts/screenshot-tour.ts`.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { conversationText, launchChromium, send, startApp, turnOver } from '../test/e2e/support'
import { startFakeProvider } from '../test/support/fake-provider'

const OUTPUT = fileURLToPath(new URL('../docs/images/tour.png', import.meta.url))

/** The demo project: a recipe scaler whose rounding drops every fraction. */
const PROJECT_FILES: Record<string, string> = {
  'package.json': `${JSON.stringify({ name: 'recipe-box', version: '1.0.0', type: 'module' }, null, 2)}\n`,
  'README.md': '# Recipe box\n\nScales recipes to any number of servings.\n',
  'src/recipe.ts': [
    'export interface Ingredient {',
    '  name: string',
    '  amount: number',
    '  unit: string',
    '}',
    '',
    'export interface Recipe {',
    '  title: string',
    '  servings: number',
    '  ingredients: Ingredient[]',
    '}',
    '',
  ].join('\n'),
  'src/scale.ts': [
    "import type { Recipe } from './recipe'",
    '',
    '/** Scales every ingredient of a recipe to serve `servings` people. */',
    'export function scaleRecipe(recipe: Recipe, servings: number): Recipe {',
    '  const factor = servings / recipe.servings',
    '  return {',
    '    ...recipe,',
    '    servings,',
    '    ingredients: recipe.ingredients.map((item) => ({',
    '      ...item,',
    '      amount: Math.floor(item.amount * factor),',
    '    })),',
    '  }',
    '}',
    '',
  ].join('\n'),
}

const ANSWER = [
  'Found it: `scaleRecipe` in **src/scale.ts** used `Math.floor`, which drops every fraction, so',
  '1.5 eggs became 1. It now rounds to two decimals: the 4-serving pancakes scaled to 6 ask for',
  '**1.5 eggs** and **375 g** of flour.',
].join('\n')

function writeProject(folder: string): void {
  for (const [path, text] of Object.entries(PROJECT_FILES)) {
    mkdirSync(dirname(join(folder, path)), { recursive: true })
    writeFileSync(join(folder, path), text)
  }
}

async function main(): Promise<void> {
  const scratch = mkdtempSync(join(tmpdir(), 'atelier-tour-'))
  const home = join(scratch, 'home')
  const project = join(home, 'code', 'recipe-box')
  writeProject(project)
  const fake = await startFakeProvider()
  const app = await startApp(join(scratch, 'data'), home)
  const browser = await launchChromium()
  try {
    const { atelier } = app
    atelier.providers.create({
      kind: 'openai-chat',
      name: 'Local',
      baseUrl: fake.baseUrlFor('openai-chat'),
      defaultModel: 'qwen3:8b',
    })
    // Earlier chats, so the list beside the conversation looks lived in.
    for (const title of ['Release notes for 1.2', 'Why is the build slow?']) {
      atelier.chats.rename({ id: atelier.chats.create({}).id, title })
    }
    const chat = atelier.chats.create({})
    atelier.chats.configure({ id: chat.id, workingDir: project, mode: 'agent', approvalMode: 'ask' })

    fake.enqueue(
      {
        toolCalls: [{ name: 'read_file', arguments: JSON.stringify({ path: 'src/scale.ts' }) }],
      },
      {
        toolCalls: [
          {
            name: 'edit_file',
            arguments: JSON.stringify({
              path: 'src/scale.ts',
              old_string: 'amount: Math.floor(item.amount * factor),',
              new_string: 'amount: Math.round(item.amount * factor * 100) / 100,',
            }),
          },
        ],
      },
      { text: ANSWER, chunkSize: 12, delayMs: 5 },
    )

    const context = await browser.newContext({ colorScheme: 'light', viewport: { width: 1280, height: 860 } })
    const page = await context.newPage()
    await page.goto(app.host.url)
    await page.getByRole('heading', { level: 1, name: chat.title }).waitFor()
    await send(page, 'Scaling a recipe turns 1.5 eggs into 1. Find the bug and fix it.')
    // The edit asks first (the chat is in Ask mode): allow it once, as a person would.
    await page.getByRole('button', { name: 'Allow once' }).click()
    await conversationText(page, (text) => text.includes('375 g'))
    await turnOver(page)
    await page.mouse.move(0, 0)
    mkdirSync(dirname(OUTPUT), { recursive: true })
    await page.screenshot({ path: OUTPUT })
    process.stdout.write(`Wrote ${OUTPUT}\n`)
  } finally {
    await browser.close()
    await app.stop()
    await fake.close()
    rmSync(scratch, { recursive: true, force: true })
  }
}

await main()
