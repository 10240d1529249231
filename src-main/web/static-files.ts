import { readFile, stat } from 'node:fs/promises'
import { extname, relative, resolve, sep } from 'node:path'

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.json': 'application/json',
}

export interface StaticFile {
  body: Buffer
  contentType: string
}

/**
 * A file of the built renderer for a URL path, or undefined when there is none. Paths that climb
 * out of `root` (`/../`, encoded or not) find nothing.
 */
export async function readStaticFile(root: string, pathname: string): Promise<StaticFile | undefined> {
  let decoded: string
  try {
    decoded = decodeURIComponent(pathname === '/' ? '/index.html' : pathname)
  } catch {
    return undefined
  }
  const base = resolve(root)
  const file = resolve(base, `.${decoded}`)
  const inside = relative(base, file)
  if (inside === '' || inside === '..' || inside.startsWith(`..${sep}`)) return undefined
  try {
    if (!(await stat(file)).isFile()) return undefined
    return {
      body: await readFile(file),
      contentType: CONTENT_TYPES[extname(file)] ?? 'application/octet-stream',
    }
  } catch {
    return undefined
  }
}

/** Response headers for a renderer file: the CSP on every response, no caching of the page itself. */
export function staticFileHeaders(file: StaticFile, policy: string): Record<string, string> {
  return {
    'content-type': file.contentType,
    'content-security-policy': policy,
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'cache-control': file.contentType.startsWith('text/html') ? 'no-store' : 'private, max-age=3600',
  }
}
