import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { dirname, join, relative, resolve, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { useTempDirs } from './support/temp-dir'

const ROOT = fileURLToPath(new URL('..', import.meta.url))

/** README.md and every Markdown file under docs/, relative to `root`. */
function documents(root: string): string[] {
  const docs = join(root, 'docs')
  const nested = existsSync(docs)
    ? readdirSync(docs, { recursive: true, withFileTypes: true })
        .filter((entry) => entry.isFile() && entry.name.endsWith('.md'))
        .map((entry) => relative(root, join(entry.parentPath, entry.name)))
    : []
  return ['README.md', ...nested.sort()]
}

/** For each line, whether it belongs to a fenced code block (its fences included). */
function fencedLines(lines: string[]): boolean[] {
  let fence: string | undefined
  return lines.map((line) => {
    const marker = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1]
    if (fence === undefined) {
      fence = marker
      return marker !== undefined
    }
    const closes =
      marker?.[0] === fence[0] &&
      marker.length >= fence.length &&
      /^[ \t]*$/.test(line.slice(line.indexOf(marker) + marker.length))
    if (closes) fence = undefined
    return true
  })
}

/**
 * The text with code blocks and code spans blanked out (line breaks kept), so that a `[x](y)` shown
 * as code is not a link.
 */
function withoutCode(markdown: string): string {
  const blank = (text: string) => text.replace(/[^\n]/g, ' ')
  const lines = markdown.split('\n')
  const fenced = fencedLines(lines)
  return lines
    .map((line, index) => (fenced[index] ? blank(line) : line))
    .join('\n')
    .replace(/(`+)(?!`)[\s\S]*?[^`]\1(?!`)/g, blank)
}

/** Every inline link and image destination, as written (`path`, `path#anchor`, `#anchor`). */
function linkTargets(markdown: string): string[] {
  const links = /!?\[(?:[^[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]*)>?(?:\s+"[^"]*")?\s*\)/g
  return [...withoutCode(markdown).matchAll(links)].map((match) => match[1] ?? '')
}

/** GitHub's anchor for a heading's text: lower case, punctuation dropped, spaces made hyphens. */
function slug(heading: string): string {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[`*]/g, '')
    .trim()
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-')
}

/** The anchors a document's headings get, repeats numbered as GitHub numbers them (`-1`, `-2`). */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>()
  const result = new Set<string>()
  const lines = markdown.split('\n')
  const fenced = fencedLines(lines)
  lines.forEach((line, index) => {
    const heading = /^ {0,3}#{1,6}[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$/.exec(line)
    if (!heading || fenced[index]) return
    const base = slug(heading[1] ?? '')
    const count = seen.get(base) ?? 0
    seen.set(base, count + 1)
    result.add(count === 0 ? base : `${base}-${count}`)
  })
  return result
}

/**
 * Every relative link of the documents under `root` that leads nowhere: a file that does not
 * exist, a path out of the repository, or an anchor no heading of the target document has.
 */
function brokenLinks(root: string): string[] {
  const problems: string[] = []
  for (const document of documents(root)) {
    const source = readFileSync(join(root, document), 'utf8')
    for (const target of linkTargets(source)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue
      const [rawPath = '', anchor] = target.split('#', 2)
      const path = decodeURIComponent(rawPath.split('?')[0] ?? '')
      const file = path === '' ? join(root, document) : resolve(root, dirname(document), path)
      const where = `${document}: (${target})`
      if (relative(root, file).split(sep)[0] === '..') {
        problems.push(`${where} leaves the repository`)
      } else if (!existsSync(file)) {
        problems.push(`${where} names a file that does not exist`)
      } else if (anchor !== undefined && file.endsWith('.md') && statSync(file).isFile()) {
        if (!anchors(readFileSync(file, 'utf8')).has(anchor)) {
          problems.push(`${where} names a heading ${relative(root, file)} does not have`)
        }
      }
    }
  }
  return problems
}

describe('documentation links', () => {
  const tempDir = useTempDirs()

  it('finds the links of README.md and docs/', () => {
    const found = documents(ROOT).flatMap((document) =>
      linkTargets(readFileSync(join(ROOT, document), 'utf8')),
    )
    expect(found).toContain('docs/images/tour.png')
    expect(found.filter((target) => target.includes('#')).length).toBeGreaterThan(10)
  })

  it('resolves every relative link, anchors included', () => {
    expect(brokenLinks(ROOT)).toEqual([])
  })

  it('names the document and the link of a missing file, a missing heading and a path out', () => {
    const root = tempDir()
    mkdirSync(join(root, 'docs', 'images'), { recursive: true })
    writeFileSync(join(root, 'docs', 'images', 'shot.png'), '')
    writeFileSync(
      join(root, 'README.md'),
      [
        '# Title',
        '[guide](docs/guide.md#the-composer) ![shot](docs/images/shot.png) [gone](docs/gone.md)',
        '[site](https://example.com/x.md) [mail](mailto:a@example.com) [up](#title) [nowhere](#nowhere)',
        '[outside](../elsewhere/DESIGN.md)',
        '```md',
        '[in a code block](docs/also-gone.md)',
        '```',
        'and `[in a code span](docs/also-gone.md)`',
      ].join('\n'),
    )
    writeFileSync(
      join(root, 'docs', 'guide.md'),
      [
        '# Using it',
        '## The composer',
        '## Sign-in (OAuth 2.1): `atelier mcp login`',
        '```sh',
        '# not a heading',
        '```',
        '[self](#sign-in-oauth-21-atelier-mcp-login) [code](#not-a-heading) [back](../README.md#title)',
      ].join('\n'),
    )

    expect(brokenLinks(root)).toEqual([
      'README.md: (docs/gone.md) names a file that does not exist',
      'README.md: (#nowhere) names a heading README.md does not have',
      'README.md: (../elsewhere/DESIGN.md) leaves the repository',
      'docs/guide.md: (#not-a-heading) names a heading docs/guide.md does not have',
    ])
  })
})
