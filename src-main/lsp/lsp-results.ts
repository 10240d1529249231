/**
 * What servers answer, in the shapes the tools report: LSP's 0-based positions become 1-based lines
 * and columns, URIs become paths, the several shapes one answer may take become one.
 */
import { fileURLToPath } from 'node:url'
import {
  type Diagnostic,
  type DocumentSymbol,
  type Hover,
  type Location,
  type LocationLink,
  type MarkedString,
  type MarkupContent,
  type SymbolInformation,
  SymbolKind,
  type WorkspaceSymbol,
} from 'vscode-languageserver-protocol/node'
import type { DiagnosticSeverity, FileDiagnostic } from '../../src-shared/code-intelligence'
import type { CodeLocation, CodeSymbol } from '../tools/code-intelligence'

const SEVERITIES: Record<number, DiagnosticSeverity> = { 1: 'error', 2: 'warning', 3: 'info', 4: 'hint' }

/** Symbol kinds by number, as their names (`Function` → `function`). */
const SYMBOL_KINDS = new Map<number, string>(
  Object.entries(SymbolKind).map(([name, value]) => [value as number, name.toLowerCase()]),
)

export function toFileDiagnostic(path: string, diagnostic: Diagnostic): FileDiagnostic {
  const source = diagnostic.source
  return {
    path,
    line: diagnostic.range.start.line + 1,
    column: diagnostic.range.start.character + 1,
    // A diagnostic without a severity is the client's to interpret; LSP says treat it as an error.
    severity: SEVERITIES[diagnostic.severity ?? 1] ?? 'error',
    message: typeof diagnostic.message === 'string' ? diagnostic.message : diagnostic.message.value,
    ...(source && { source }),
  }
}

/** A path from a server's URI; anything but a file is left out. */
function pathOf(uri: string): string | undefined {
  return uri.startsWith('file:') ? fileURLToPath(uri) : undefined
}

/** `definition` and `references` answer a location, a list of them, or links. */
export function fromLocations(
  answer: Location | Location[] | LocationLink[] | null | undefined,
): CodeLocation[] {
  if (!answer) return []
  const list = Array.isArray(answer) ? answer : [answer]
  return list.flatMap((item: Location | LocationLink) => {
    const [uri, range] =
      'targetUri' in item ? [item.targetUri, item.targetSelectionRange] : [item.uri, item.range]
    const path = pathOf(uri)
    return path ? [{ path, line: range.start.line + 1, column: range.start.character + 1 }] : []
  })
}

/** A hover's contents as plain text: markup, a marked string, or a list of them. */
export function hoverText(hover: Hover | null | undefined): string | undefined {
  if (!hover) return undefined
  const parts: (MarkupContent | MarkedString)[] = Array.isArray(hover.contents)
    ? hover.contents
    : [hover.contents]
  const text = parts
    .map((part) => (typeof part === 'string' ? part : part.value))
    .join('\n\n')
    .trim()
  return text || undefined
}

/**
 * A file's symbols (a tree, flattened, or flat) or a workspace search's; `path` is the file asked
 * about, since a document's symbols carry no URI of their own.
 */
export function fromSymbols(
  answer: (DocumentSymbol | SymbolInformation | WorkspaceSymbol)[] | null | undefined,
  path: string | undefined,
): CodeSymbol[] {
  const found: CodeSymbol[] = []
  const visit = (symbol: DocumentSymbol | SymbolInformation | WorkspaceSymbol, container?: string) => {
    const kind = SYMBOL_KINDS.get(symbol.kind) ?? 'symbol'
    if ('location' in symbol) {
      const file = pathOf(symbol.location.uri)
      const start = 'range' in symbol.location ? symbol.location.range.start : undefined
      if (!file) return
      const named = symbol.containerName ?? container
      found.push({
        name: symbol.name,
        kind,
        path: file,
        line: (start?.line ?? 0) + 1,
        column: (start?.character ?? 0) + 1,
        ...(named && { container: named }),
      })
      return
    }
    if (path === undefined) return
    const start = symbol.selectionRange.start
    found.push({
      name: symbol.name,
      kind,
      path,
      line: start.line + 1,
      column: start.character + 1,
      ...(container && { container }),
    })
    for (const child of symbol.children ?? []) visit(child, symbol.name)
  }
  for (const symbol of answer ?? []) visit(symbol)
  return found
}
