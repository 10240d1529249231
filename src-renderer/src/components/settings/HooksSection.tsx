import { type FormEvent, useCallback, useEffect, useId, useState } from 'react'
import type { AtelierApi } from '../../../../src-shared/api'
import type { HookEntry, HookImport, HookRun } from '../../../../src-shared/hooks'
import { errorMessage } from '../../errors'
import { HookRuns } from '../chat/HookRuns'
import { HookForm } from './HookForm'
import { Notice } from './Notice'

interface HooksSectionProps {
  api: AtelierApi
  /** The current chat's project folder: its `.atelier/hooks.json` is listed too. */
  folder: string | null
}

/**
 * Your own commands at the agent's lifecycle points: every hook (yours, then the project's, which
 * run only in a trusted folder), adding and editing them, a test run with a sample input, importing
 * Claude Code's or Gemini CLI's, and the latest runs with their output.
 */
export function HooksSection({ api, folder }: HooksSectionProps) {
  const id = useId()
  const [hooks, setHooks] = useState<HookEntry[]>()
  const [runs, setRuns] = useState<HookRun[]>([])
  const [editing, setEditing] = useState<HookEntry | 'new'>()
  const [tested, setTested] = useState<{ id: string; run: HookRun }>()
  const [imported, setImported] = useState<HookImport>()
  const [error, setError] = useState<string>()

  const refresh = useCallback(async () => {
    try {
      const [list, latest] = await Promise.all([api.hooks.list(folder ? { folder } : {}), api.hooks.runs({})])
      setHooks(list)
      setRuns(latest)
    } catch (failure) {
      setError(errorMessage(failure))
    }
  }, [api, folder])

  useEffect(() => {
    void refresh()
  }, [refresh])

  const place = (entry: HookEntry) => ({
    scope: entry.scope,
    ...(entry.scope === 'project' && folder && { folder }),
  })

  async function test(entry: HookEntry) {
    setError(undefined)
    try {
      setTested({ id: entry.id, run: await api.hooks.test({ ...place(entry), id: entry.id }) })
      await refresh()
    } catch (failure) {
      setError(errorMessage(failure))
    }
  }

  async function remove(entry: HookEntry) {
    setError(undefined)
    try {
      await api.hooks.remove({ ...place(entry), id: entry.id })
      await refresh()
    } catch (failure) {
      setError(errorMessage(failure))
    }
  }

  return (
    <div className="settings-section" aria-busy={!hooks && !error ? true : undefined}>
      <header className="section-intro section-intro-row">
        <div>
          <h2>Hooks</h2>
          <p className="muted">
            Your own commands, run at the agent's lifecycle points: a formatter after every edit, a gate
            before a command, a notification when Atelier waits for you. They are kept in{' '}
            <code>~/.atelier/hooks.json</code> and a project's <code>.atelier/hooks.json</code>, in Claude
            Code's format; a project's run only once you trust its folder.
          </p>
        </div>
        {!editing && (
          <button type="button" className="primary" onClick={() => setEditing('new')}>
            Add hook
          </button>
        )}
      </header>
      {error && (
        <Notice tone="danger" role="alert">
          {error}
        </Notice>
      )}
      {editing && (
        <HookForm
          api={api}
          folder={folder}
          {...(editing !== 'new' && { editing })}
          onCancel={() => setEditing(undefined)}
          onDone={() => {
            setEditing(undefined)
            void refresh()
          }}
        />
      )}
      <section className="setting-group" aria-labelledby={`${id}-list`}>
        <h3 id={`${id}-list`}>Hooks</h3>
        {!hooks && !error && <p className="muted">Loading hooks…</p>}
        {hooks?.length === 0 && <p className="muted">No hooks yet.</p>}
        {hooks && hooks.length > 0 && (
          <ul className="item-list hook-list" aria-labelledby={`${id}-list`}>
            {hooks.map((entry) => (
              <li key={entry.id} className="item-card" aria-label={`${entry.event} hook ${entry.command}`}>
                <div className="item-card-head">
                  <div>
                    <h4 className="hook-entry-title">
                      {entry.event}
                      {entry.matcher && <code> [{entry.matcher}]</code>}
                    </h4>
                    <p>
                      <code>{entry.command}</code>
                    </p>
                    <p className="muted">
                      {entry.scope === 'user' ? 'Yours' : "This project's"} · {entry.timeoutSeconds} s
                      {!entry.runs && ' · not run: trust the folder under Custom tools first'}
                      {entry.problem && ` · ${entry.problem}`}
                    </p>
                  </div>
                  <div className="item-card-actions">
                    <button
                      type="button"
                      className="small"
                      disabled={!entry.runs}
                      onClick={() => void test(entry)}
                    >
                      Test
                    </button>
                    <button type="button" className="small" onClick={() => setEditing(entry)}>
                      Edit
                    </button>
                    <button type="button" className="small" onClick={() => void remove(entry)}>
                      Remove
                    </button>
                  </div>
                </div>
                {tested?.id === entry.id && (
                  <div role="status" aria-label={`Test run of ${entry.command}`}>
                    <HookRuns name={entry.command} runs={[tested.run]} title="Test run" />
                  </div>
                )}
              </li>
            ))}
          </ul>
        )}
      </section>
      <ImportForm
        api={api}
        folder={folder}
        onImported={(result) => {
          setImported(result)
          void refresh()
        }}
      />
      {imported && (
        <Notice tone={imported.skipped.length > 0 ? 'warning' : 'info'} role="status">
          Added {imported.added.length} hook{imported.added.length === 1 ? '' : 's'} from {imported.from}.
          {imported.skipped.map(({ what, why }) => (
            <span key={what}>
              <br />
              Not mapped: {what}: {why}
            </span>
          ))}
        </Notice>
      )}
      <section className="setting-group" aria-labelledby={`${id}-runs`}>
        <div className="section-intro-row">
          <h3 id={`${id}-runs`}>Last runs</h3>
          <button type="button" onClick={() => void refresh()}>
            Refresh
          </button>
        </div>
        {runs.length === 0 ? (
          <p className="muted">No hook has run since Atelier started.</p>
        ) : (
          <HookRuns name="the latest runs" runs={[...runs].reverse().slice(0, 20)} title="" />
        )}
      </section>
    </div>
  )
}

/** Imports Claude Code's or Gemini CLI's settings file into your hooks or the project's. */
function ImportForm({
  api,
  folder,
  onImported,
}: {
  api: AtelierApi
  folder: string | null
  onImported(result: HookImport): void
}) {
  const id = useId()
  const [from, setFrom] = useState('')
  const [dialect, setDialect] = useState<'claude' | 'gemini'>('claude')
  const [error, setError] = useState<string>()

  async function submit(event: FormEvent) {
    event.preventDefault()
    setError(undefined)
    if (!from.trim()) return setError('Write the path of the settings file.')
    try {
      onImported(
        await api.hooks.import({
          from: from.trim(),
          dialect,
          scope: folder ? 'project' : 'user',
          ...(folder && { folder }),
        }),
      )
    } catch (failure) {
      setError(errorMessage(failure))
    }
  }

  return (
    <form className="setting-group" aria-labelledby={`${id}-title`} onSubmit={submit}>
      <h3 id={`${id}-title`}>Import</h3>
      <p className="muted">
        Reads the <code>hooks</code> of a Claude Code settings file (<code>~/.claude/settings.json</code>,{' '}
        <code>.claude/settings.json</code>) or Gemini CLI's, and adds them{' '}
        {folder ? "to this project's" : 'to yours'}.
      </p>
      <div className="field">
        <label className="field-label" htmlFor={`${id}-from`}>
          Settings file
        </label>
        <input
          id={`${id}-from`}
          type="text"
          className="mono"
          spellCheck={false}
          value={from}
          placeholder="~/.claude/settings.json"
          onChange={(event) => setFrom(event.target.value)}
        />
      </div>
      <div className="field">
        <label className="field-label" htmlFor={`${id}-dialect`}>
          Written for
        </label>
        <select
          id={`${id}-dialect`}
          value={dialect}
          onChange={(event) => setDialect(event.target.value as 'claude' | 'gemini')}
        >
          <option value="claude">Claude Code</option>
          <option value="gemini">Gemini CLI</option>
        </select>
      </div>
      {error && (
        <Notice tone="danger" role="alert">
          {error}
        </Notice>
      )}
      <div className="form-actions">
        <button type="submit">Import hooks</button>
      </div>
    </form>
  )
}
