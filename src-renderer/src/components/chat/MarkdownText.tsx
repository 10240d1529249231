import { memo } from 'react'
import Markdown, { type Components } from 'react-markdown'
import rehypeHighlight from 'rehype-highlight'
import remarkGfm from 'remark-gfm'
import { CodeBlock } from './CodeBlock'

const remarkPlugins = [remarkGfm]
const rehypePlugins = [rehypeHighlight]

/**
 * Model text is untrusted: raw HTML is dropped (`skipHtml`, no rehype-raw), links open outside the
 * app (the shell hands `_blank` to the OS browser), and images are never fetched — they become links.
 */
const components: Components = {
  pre: CodeBlock,
  a: ({ node: _node, href, children }) => (
    <a href={href} target="_blank" rel="noreferrer">
      {children}
    </a>
  ),
  img: ({ node: _node, src, alt }) =>
    typeof src === 'string' && src ? (
      <a href={src} target="_blank" rel="noreferrer" className="markdown-image-link">
        {alt ? `Image: ${alt}` : 'Image'}
      </a>
    ) : (
      <span>{alt}</span>
    ),
  table: ({ node: _node, ...props }) => (
    <div className="markdown-table">
      <table {...props} />
    </div>
  ),
}

/** Assistant text as Markdown (GFM), with highlighted code. Memoized: a row re-renders only when its text changes. */
export const MarkdownText = memo(function MarkdownText({ text }: { text: string }) {
  return (
    <div className="markdown">
      <Markdown remarkPlugins={remarkPlugins} rehypePlugins={rehypePlugins} skipHtml components={components}>
        {text}
      </Markdown>
    </div>
  )
})
