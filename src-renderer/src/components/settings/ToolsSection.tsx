import { useEffect, useId, useState } from 'react'
import type { AtelierApi } from '../../../../src-shared/api'
import type { ToolCategory, ToolSettingsDescriptor } from '../../../../src-shared/tools'
import { errorMessage } from '../../errors'
import { everyTool } from './every-tool'
import { Notice } from './Notice'
import { ToolCard } from './ToolCard'
import { ToolPlayground } from './ToolPlayground'

const CATEGORIES: { category: ToolCategory; title: string; description: string }[] = [
  { category: 'system', title: 'System', description: 'Files, search, shells and the clock.' },
  { category: 'image', title: 'Images', description: 'Making pictures with the provider’s image models.' },
  { category: 'interaction', title: 'Interaction', description: 'Asking you and showing you things.' },
  { category: 'web', title: 'Web', description: 'Reading pages on the web, within the address rules.' },
]

/** Every tool, grouped by category: switches, parameters and the playground. */
export function ToolsSection({ api }: { api: AtelierApi }) {
  const id = useId()
  const [tools, setTools] = useState<ToolSettingsDescriptor[]>()
  const [error, setError] = useState<string>()
  const [trying, setTrying] = useState<string>()

  useEffect(() => {
    let live = true
    everyTool(api).then(
      (list) => live && setTools(list),
      (failure: unknown) => live && setError(errorMessage(failure)),
    )
    return () => {
      live = false
    }
  }, [api])

  const replace = (updated: ToolSettingsDescriptor) =>
    setTools((current) => current?.map((tool) => (tool.name === updated.name ? updated : tool)))
  const tryingTool = tools?.find((tool) => tool.name === trying)
  const enabledCount = tools?.filter((tool) => tool.enabled).length ?? 0

  return (
    <div className="settings-section" aria-busy={!tools && !error ? true : undefined}>
      <header className="section-intro">
        <h2>Tools</h2>
        <p className="muted">
          What the agent can do. Changes are saved for you and apply from the next turn.
          {tools && ` ${enabledCount} of ${tools.length} tools are on.`}
        </p>
      </header>
      {error && (
        <Notice tone="danger" role="alert" title="The tools could not be listed">
          {error}
        </Notice>
      )}
      {!tools && !error && <p className="muted">Loading tools…</p>}
      {tools &&
        CATEGORIES.map(({ category, title, description }) => {
          const inCategory = tools.filter((tool) => tool.category === category)
          if (inCategory.length === 0) return null
          return (
            <section key={category} className="tool-group" aria-labelledby={`${id}-${category}`}>
              <div className="tool-group-heading">
                <h3 id={`${id}-${category}`}>{title}</h3>
                <p className="muted">{description}</p>
              </div>
              <div className="tool-list">
                {inCategory.map((tool) => (
                  <ToolCard
                    key={tool.name}
                    api={api}
                    tool={tool}
                    onUpdated={replace}
                    onTry={(chosen) => setTrying(chosen.name)}
                  />
                ))}
              </div>
            </section>
          )
        })}
      {tryingTool && <ToolPlayground api={api} tool={tryingTool} onClose={() => setTrying(undefined)} />}
    </div>
  )
}
