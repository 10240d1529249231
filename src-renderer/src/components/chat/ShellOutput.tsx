import { useLayoutEffect, useRef } from 'react'
import type { ShellChunk } from './conversation'

/** A shell's output, stderr tinted; it follows the end as output arrives unless scrolled up. */
export function ShellOutput({ chunks, label }: { chunks: ShellChunk[]; label: string }) {
  const box = useRef<HTMLPreElement>(null)
  const following = useRef(true)
  const length = chunks.reduce((sum, chunk) => sum + chunk.text.length, 0)
  // biome-ignore lint/correctness/useExhaustiveDependencies: follows the end whenever more output arrives
  useLayoutEffect(() => {
    const element = box.current
    if (element && following.current) element.scrollTop = element.scrollHeight
  }, [length])
  if (length === 0) return null
  return (
    <pre
      ref={box}
      className="shell-output"
      role="log"
      aria-label={label}
      // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard
      tabIndex={0}
      onScroll={(event) => {
        const element = event.currentTarget
        following.current = element.scrollHeight - element.scrollTop - element.clientHeight < 24
      }}
    >
      {chunks.map((chunk, index) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: chunks only ever grow at the end
        <span key={index} className={chunk.stream === 'stderr' ? 'shell-stderr' : undefined}>
          {chunk.text}
        </span>
      ))}
    </pre>
  )
}
