/**
 * A command file: Markdown whose optional front matter (`---` lines around `key: value` pairs) sets
 * `description`, `agent` and `model`, and whose body is the prompt, with `$ARGUMENTS` and `$1…$9`
 * standing for what follows `/name`. Read by hand: three flat keys do not need a YAML parser.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { basename, join } from 'node:path'
import { COMMAND_NAME } from '../../src-shared/commands'

/** What a command file says. */
export interface CommandFile {
  name: string
  path: string
  description?: string
  /** The agent profile (by name) its turn runs with. */
  agent?: string
  /** The model its turn asks for. */
  model?: string
  body: string
}

const FRONT_MATTER_KEYS = ['description', 'agent', 'model'] as const

/** The `*.md` command files of `folder` (not its sub-folders), by name; none when it does not exist. */
export function readCommandFolder(folder: string): CommandFile[] {
  let names: string[]
  try {
    names = readdirSync(folder).filter((name) => name.endsWith('.md'))
  } catch {
    return []
  }
  return names.sort().flatMap((name) => {
    const path = join(folder, name)
    const command = basename(name, '.md')
    if (!COMMAND_NAME.test(command)) return []
    try {
      return [{ name: command, path, ...parseCommandText(readFileSync(path, 'utf8')) }]
    } catch {
      // A file that went away or cannot be read is no command.
      return []
    }
  })
}

/** The front matter's keys and the body of a command file's text. */
export function parseCommandText(text: string): Omit<CommandFile, 'name' | 'path'> {
  const match = /^---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/.exec(text)
  if (!match) return { body: text.trim() }
  const fields: Partial<Record<(typeof FRONT_MATTER_KEYS)[number], string>> = {}
  for (const line of (match[1] as string).split(/\r?\n/)) {
    const pair = /^([A-Za-z-]+):\s*(.*)$/.exec(line)
    const key = FRONT_MATTER_KEYS.find((known) => known === pair?.[1])
    const value = unquoted((pair?.[2] ?? '').trim())
    if (key && value) fields[key] = value
  }
  return { ...fields, body: text.slice(match[0].length).trim() }
}

function unquoted(value: string): string {
  const quoted = /^(["'])(.*)\1$/.exec(value)
  return quoted ? (quoted[2] as string) : value
}

/** Whether a body uses what follows `/name`. */
export function usesArguments(body: string): boolean {
  return /\$(ARGUMENTS|[1-9])/.test(body)
}

/**
 * The body with `$ARGUMENTS` replaced by all that followed `/name` and `$1…$9` by its words in turn
 * (a missing word is empty). A body that uses none gets the arguments after it, so they are not lost.
 */
export function expandBody(body: string, args: string): string {
  if (!usesArguments(body)) return args === '' ? body : `${body}\n\n${args}`
  const words = args === '' ? [] : args.split(/\s+/)
  return body.replace(/\$(ARGUMENTS|[1-9])/g, (_, which: string) =>
    which === 'ARGUMENTS' ? args : (words[Number(which) - 1] ?? ''),
  )
}
