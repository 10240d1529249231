import type { Token } from './highlight'

/** One highlighted line's tokens: plain text, or a span with the highlighter's class. */
export function HighlightedTokens({ line }: { line: Token[] }) {
  return line.map((token, at) =>
    token.className ? (
      // biome-ignore lint/suspicious/noArrayIndexKey: a line's tokens are fixed once highlighted
      <span key={at} className={token.className}>
        {token.text}
      </span>
    ) : (
      token.text
    ),
  )
}
