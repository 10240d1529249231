import { useEffect, useRef, useState } from 'react'
import type { AtelierApi } from '../../../../src-shared/api'
import type { Preferences } from '../../../../src-shared/contract'
import { errorMessage } from '../../errors'
import { useCustomTools } from '../useCustomTools'
import { CustomToolFolderCard } from './CustomToolFolderCard'
import { CustomToolLogDialog } from './CustomToolLogDialog'
import { SectionNotices } from './Notice'
import { PathListGroup } from './PathListGroup'
import '../../custom-tools.css'

interface CustomToolsSectionProps {
  api: AtelierApi
  /** The current chat's bound folder, whose own tool folders are listed too; null for none. */
  folder: string | null
  preferences: Preferences | undefined
  onChange(changes: Partial<Preferences>): void
}

/**
 * Custom tools: every tool folder found (the person's, the current project's, the configured
 * paths), each file with how loading it went, the project's trust, the modules' logs, and the
 * configured paths. Folders load and reload on their own (an edit, a turn), so the section follows
 * `customTools.changed` as well as its own actions.
 */
export function CustomToolsSection({ api, folder, preferences, onChange }: CustomToolsSectionProps) {
  // The section is where the person looks at how loading went: opening it loads the folders.
  const { info, error: loadError, refresh, accept, track } = useCustomTools(api, folder, { load: true })
  const [reloading, setReloading] = useState(false)
  const [error, setError] = useState<string>()
  const [news, setNews] = useState<string>()
  const [log, setLog] = useState<{ file: string; name: string }>()

  // Saved paths (here or in another window) change what is found: list again.
  const paths = JSON.stringify(preferences?.customToolPaths ?? [])
  const listedPaths = useRef<string>(undefined)
  listedPaths.current = info && JSON.stringify(info.configuredPaths)
  useEffect(() => {
    if (listedPaths.current !== undefined && listedPaths.current !== paths) void refresh()
  }, [paths, refresh])

  async function reload() {
    setReloading(true)
    setError(undefined)
    setNews(undefined)
    try {
      accept(await track(() => api.customTools.reload(folder === null ? {} : { folder })))
      setNews('Reloaded every tool folder.')
    } catch (failure) {
      setError(errorMessage(failure))
    } finally {
      setReloading(false)
    }
  }

  const folders = info?.folders ?? []
  return (
    <div className="settings-section" aria-busy={!info && !loadError ? true : undefined}>
      <header className="section-intro section-intro-row">
        <div>
          <h2>Custom tools</h2>
          <p className="muted">
            Your own tools, written as TypeScript or JavaScript modules: in <code>~/.atelier/tools</code> for
            every chat, in a project’s <code>.atelier/tools</code> for chats bound to it. Each folder runs in
            a host process of its own; an edited file is loaded again at the next turn. A project’s folder
            runs nothing until you trust the project.
          </p>
        </div>
        <div className="section-intro-actions">
          <button type="button" disabled={reloading} onClick={() => void reload()}>
            {reloading ? 'Reloading…' : 'Reload'}
          </button>
        </div>
      </header>
      <SectionNotices loadError={loadError} error={error} news={news} />
      <p className="muted custom-project">
        {folder ? (
          <>
            Project folder (the current chat’s): <code>{folder}</code>
          </>
        ) : (
          'No project folder: open a chat bound to a folder to see its own tool folders here too.'
        )}
      </p>
      {!info && !loadError && <p className="muted">Loading custom tools…</p>}
      {info && folders.length === 0 && (
        <div className="empty-teaching">
          <h3>No custom tools found</h3>
          <p>
            Put a module in <code>~/.atelier/tools/</code> — say <code>repo-stats.ts</code>, whose default
            export is a factory returning a tool — or add its path below. It is listed here with how loading
            it went.
          </p>
        </div>
      )}
      {folders.length > 0 && (
        <div className="item-list">
          {folders.map((each) => (
            <CustomToolFolderCard
              key={each.path}
              api={api}
              folder={each}
              track={track}
              onChanged={refresh}
              onShowLog={(file, name) => setLog({ file, name })}
            />
          ))}
        </div>
      )}
      {info?.skippedPaths.map((skipped) => (
        <p key={skipped.path} className="muted custom-skipped">
          Skipped <code>{skipped.path}</code>: {skipped.reason}
        </p>
      ))}
      <PathListGroup
        saved={preferences?.customToolPaths}
        onSave={(customToolPaths) => onChange({ customToolPaths })}
        title="More tool paths"
        hint={
          <>
            Tool module files or folders to load besides <code>~/.atelier/tools</code> and a trusted project’s{' '}
            <code>.atelier/tools</code>. <code>~</code> is your home folder; a relative path is read against
            the chat’s project folder, and one inside a project runs only once that project is trusted.
          </>
        }
        label="Custom tool paths"
        placeholder="~/tools/my-tool.ts"
        saveLabel="Save tool paths"
      />
      {log && (
        <CustomToolLogDialog api={api} file={log.file} name={log.name} onClose={() => setLog(undefined)} />
      )}
    </div>
  )
}
