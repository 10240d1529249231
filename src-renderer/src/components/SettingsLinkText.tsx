import type { MouseEvent, ReactNode } from 'react'
import { SECTION_BY_LABEL, useOpenSettings } from '../settings-navigation'

/** "Settings → Providers", "Settings → MCP", …: the longest section label first, so "Tool services" wins over "Tools". */
const LABELS = Object.keys(SECTION_BY_LABEL).sort((a, b) => b.length - a.length)
const PATTERN = new RegExp(
  `Settings → (${LABELS.map((label) => label.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})`,
  'g',
)

/**
 * A message whose "Settings → Section" mentions are links that open that section, so a message
 * that says where to go also takes the person there. Plain text where Settings cannot be opened.
 */
export function SettingsLinkText({ text }: { text: string }) {
  const openSettings = useOpenSettings()
  if (!openSettings) return <>{text}</>
  const parts: ReactNode[] = []
  let last = 0
  for (const match of text.matchAll(PATTERN)) {
    const section = SECTION_BY_LABEL[match[1] as string]
    if (!section) continue
    parts.push(text.slice(last, match.index))
    const open = (event: MouseEvent) => {
      event.preventDefault()
      openSettings({ section })
    }
    parts.push(
      <a key={match.index} href={`#settings-${section}`} className="settings-link" onClick={open}>
        {match[0]}
      </a>,
    )
    last = match.index + match[0].length
  }
  parts.push(text.slice(last))
  return <>{parts}</>
}
