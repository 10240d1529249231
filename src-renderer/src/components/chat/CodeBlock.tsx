import type { ComponentProps } from 'react'
import type { ExtraProps } from 'react-markdown'
import { CopyButton } from './CopyButton'

/** The little of hast this needs; react-markdown hands the element over as `node`. */
interface HastNode {
  type: string
  value?: string
  tagName?: string
  properties?: { className?: unknown }
  children?: HastNode[]
}

function textOf(node: HastNode | undefined): string {
  if (!node) return ''
  if (node.type === 'text') return node.value ?? ''
  return (node.children ?? []).map(textOf).join('')
}

function languageOf(node: HastNode | undefined): string | undefined {
  const code = node?.children?.find((child) => child.tagName === 'code')
  const classes = code?.properties?.className
  if (!Array.isArray(classes)) return undefined
  const language = classes.find(
    (name): name is string => typeof name === 'string' && name.startsWith('language-'),
  )
  return language?.slice('language-'.length)
}

/** A fenced code block: its language, a Copy code button, and the highlighted code. */
export function CodeBlock({ node, children, ...rest }: ComponentProps<'pre'> & ExtraProps) {
  const hast = node as HastNode | undefined
  const language = languageOf(hast)
  return (
    <div className="code-block">
      <div className="code-block-bar">
        <span className="code-block-language">{language ?? 'text'}</span>
        <CopyButton label="Copy code" text={() => textOf(hast).replace(/\n$/, '')} />
      </div>
      <pre {...rest}>{children}</pre>
    </div>
  )
}
