import { type FormEvent, useEffect, useId, useRef, useState } from 'react'
import type { AtelierApi } from '../../../../src-shared/api'
import type { ChatMode, ToolRunResult } from '../../../../src-shared/contract'
import type { ToolSettingsDescriptor } from '../../../../src-shared/tools'
import { errorMessage } from '../../errors'
import { ArgumentsForm } from './ArgumentsForm'
import '../../first-run.css'
import {
  type ArgumentDrafts,
  argumentFields,
  draftsOfValues,
  schemaDefaults,
  valuesOfDrafts,
} from './argument-fields'
import { FolderField } from './FolderField'
import { Notice } from './Notice'
import { PlaygroundResult } from './PlaygroundResult'

interface ToolPlaygroundProps {
  api: AtelierApi
  tool: ToolSettingsDescriptor
  onClose(): void
}

const MODES: { value: ChatMode; label: string; hint: string }[] = [
  { value: 'agent', label: 'Agent', hint: 'Paths resolve in the folder, and tools are confined to it.' },
  {
    value: 'chat',
    label: 'Chat',
    hint: 'The folder is not given to the tool; only its path settings apply.',
  },
]

/** Remembered between runs in this window, so trying several tools in one folder is quick. */
let lastFolder = ''
let lastMode: ChatMode = 'agent'

/**
 * One call through the full executor, exactly as a turn would make it: enabled check, settings,
 * validation, containment. Shows what the model would receive.
 */
export function ToolPlayground({ api, tool, onClose }: ToolPlaygroundProps) {
  const id = useId()
  const dialog = useRef<HTMLDialogElement>(null)
  // A form from the tool's argument schema, its defaults filled in; the JSON the model would write is the other view.
  const [fields] = useState(() => argumentFields(tool.argumentSchema))
  const [drafts, setDrafts] = useState<ArgumentDrafts>(() =>
    draftsOfValues(fields, schemaDefaults(tool.argumentSchema)),
  )
  const [view, setView] = useState<'form' | 'json'>('form')
  const [args, setArgs] = useState('{}')
  const [formProblem, setFormProblem] = useState<string>()
  const [folder, setFolder] = useState(lastFolder)
  const [mode, setMode] = useState<ChatMode>(lastMode)
  /** The id of the call under way, which Stop stops; undefined while none runs. */
  const [runId, setRunId] = useState<string>()
  const running = runId !== undefined
  // The same id for the unmount below, which sees only the first render's state.
  const current = useRef<string>(undefined)
  current.current = runId
  const [result, setResult] = useState<ToolRunResult>()
  const [failure, setFailure] = useState<string>()

  // Opens as a modal; on the way out, focus goes back to whatever opened it (the Try it button).
  useEffect(() => {
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null
    const element = dialog.current
    if (element && !element.open) element.showModal()
    return () => {
      element?.close()
      opener?.focus()
      // Closing the dialog does not leave a call running with no way to stop it.
      if (current.current) api.tools.stop({ runId: current.current }).catch(() => {})
    }
  }, [api])

  let jsonProblem: string | undefined
  try {
    JSON.parse(args)
  } catch (error) {
    jsonProblem = errorMessage(error)
  }

  /** The other view takes over the arguments as they stand; JSON that is not an object stays JSON. */
  function switchView(next: 'form' | 'json') {
    if (next === view) return
    if (next === 'json') {
      setArgs(JSON.stringify(valuesOfDrafts(fields, drafts), null, 2))
      setFormProblem(undefined)
      setView('json')
      return
    }
    let parsed: unknown
    try {
      parsed = JSON.parse(args)
    } catch (error) {
      setFormProblem(`The JSON does not parse (${errorMessage(error)}): fix it to go back to the form.`)
      return
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      setFormProblem('The arguments are not a JSON object: fix them to go back to the form.')
      return
    }
    setDrafts(draftsOfValues(fields, parsed as Record<string, unknown>))
    setFormProblem(undefined)
    setView('form')
  }

  async function run() {
    if (running) return
    lastFolder = folder
    lastMode = mode
    const id = crypto.randomUUID()
    setRunId(id)
    setFailure(undefined)
    try {
      setResult(
        await api.tools.run({
          name: tool.name,
          arguments: view === 'form' ? JSON.stringify(valuesOfDrafts(fields, drafts)) : args,
          workingDir: folder.trim() || null,
          mode,
          runId: id,
        }),
      )
    } catch (error) {
      setResult(undefined)
      setFailure(errorMessage(error))
    } finally {
      setRunId(undefined)
    }
  }

  /** The call then ends as `aborted`, and its result shows as any other. */
  function stop() {
    if (!runId) return
    api.tools.stop({ runId }).catch((error: unknown) => setFailure(errorMessage(error)))
  }

  return (
    <dialog
      ref={dialog}
      className="playground"
      aria-labelledby={`${id}-title`}
      onCancel={(event) => {
        event.preventDefault()
        onClose()
      }}
    >
      <header className="playground-header">
        <div>
          <h2 id={`${id}-title`}>Try {tool.title}</h2>
          <p className="muted">
            One call of <code>{tool.name}</code> through the same checks a turn uses. The result is what the
            model would receive.
          </p>
        </div>
        <button type="button" className="ghost" onClick={onClose}>
          Close
        </button>
      </header>
      {!tool.enabled && (
        <Notice tone="warning">
          {tool.title} is off, so the call is refused as it would be for the model. Turn it on to try it.
        </Notice>
      )}
      <form
        className="playground-form"
        noValidate
        onSubmit={(event: FormEvent) => {
          event.preventDefault()
          void run()
        }}
      >
        <fieldset className="field playground-arguments">
          <legend className="field-label">Arguments</legend>
          <div role="radiogroup" aria-label="Arguments as" className="segmented">
            {(['form', 'json'] as const).map((option) => (
              <label key={option}>
                <input
                  type="radio"
                  name={`${id}-view`}
                  value={option}
                  checked={view === option}
                  onChange={() => switchView(option)}
                />
                {option === 'form' ? 'Form' : 'JSON'}
              </label>
            ))}
          </div>
          {formProblem && (
            <p className="field-error" role="alert">
              {formProblem}
            </p>
          )}
          {view === 'form' ? (
            <ArgumentsForm fields={fields} drafts={drafts} onChange={setDrafts} onRun={() => void run()} />
          ) : (
            <>
              <label className="visually-hidden" htmlFor={`${id}-args`}>
                Arguments (JSON)
              </label>
              <textarea
                id={`${id}-args`}
                className="code-input"
                rows={6}
                value={args}
                spellCheck={false}
                aria-describedby={`${id}-args-hint`}
                onChange={(event) => setArgs(event.target.value)}
                onKeyDown={(event) => {
                  if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
                    event.preventDefault()
                    void run()
                  }
                }}
              />
              <p className="field-hint" id={`${id}-args-hint`}>
                {jsonProblem
                  ? `Not valid JSON yet (${jsonProblem}); it is sent as written, as a model's would be.`
                  : 'Ctrl+Enter runs.'}
              </p>
            </>
          )}
        </fieldset>
        <div className="playground-context">
          <FolderField
            api={api}
            label="Folder"
            value={folder}
            onChange={setFolder}
            hint="The chat's folder for this call. Empty: no folder."
          />
          <fieldset className="field">
            <legend className="field-label">Mode</legend>
            <div role="radiogroup" aria-label="Mode" className="segmented">
              {MODES.map((option) => (
                <label key={option.value}>
                  <input
                    type="radio"
                    name={`${id}-mode`}
                    value={option.value}
                    checked={mode === option.value}
                    onChange={() => setMode(option.value)}
                  />
                  {option.label}
                </label>
              ))}
            </div>
            <p className="field-hint">{MODES.find((option) => option.value === mode)?.hint}</p>
          </fieldset>
        </div>
        <div className="form-actions">
          <button type="submit" className="primary" disabled={running} aria-busy={running || undefined}>
            Run
          </button>
          {running && (
            <>
              <button type="button" onClick={stop}>
                Stop
              </button>
              <span className="form-status" role="status">
                Running…
              </span>
            </>
          )}
        </div>
      </form>
      {failure && (
        <Notice tone="danger" role="alert" title="The call could not be made">
          {failure}
        </Notice>
      )}
      {result && <PlaygroundResult name={tool.name} result={result} />}
    </dialog>
  )
}
