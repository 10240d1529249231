import { useEffect, useId, useState } from 'react'
import type { AtelierApi } from '../../../../src-shared/api'
import type {
  CustomToolFileInfo,
  CustomToolFolderInfo,
  ToolFolderOrigin,
} from '../../../../src-shared/custom-tools'
import { errorMessage } from '../../errors'
import { pathIn } from '../useCustomTools'
import { Notice } from './Notice'
import { StringListField } from './StringListField'

const ORIGIN_LABELS: Record<ToolFolderOrigin, string> = {
  user: 'Your own',
  plugin: 'Plugin',
  project: 'Project',
  configured: 'Configured',
}

const STATUS_LABELS: Record<CustomToolFileInfo['status'], string> = {
  loaded: 'Loaded',
  failed: 'Failed',
  conflict: 'Name taken',
  duplicate: 'Duplicate',
  metadata: 'Metadata',
  untrusted: 'Untrusted',
  changed: 'Changed since trusted',
  pending: 'Not loaded yet',
}

const STATUS_TAGS: Record<CustomToolFileInfo['status'], string> = {
  loaded: 'tag tag-success',
  failed: 'tag tag-danger',
  conflict: 'tag tag-warning',
  duplicate: 'tag',
  metadata: 'tag',
  untrusted: 'tag tag-warning',
  changed: 'tag tag-warning',
  pending: 'tag',
}

interface CustomToolFolderCardProps {
  api: AtelierApi
  folder: CustomToolFolderInfo
  /** Runs a call that changes what loads, so its own announcements are not listed again. */
  track<T>(task: () => Promise<T>): Promise<T>
  /** After trusting or no longer trusting its project, or saving its variables: list again. */
  onChanged(): Promise<void>
  onShowLog(file: string, name: string): void
}

/** `file:line:column` of a load error, when it has a line. */
function placeOf(name: string, file: CustomToolFileInfo): string | undefined {
  const line = file.error?.line
  if (line === undefined) return undefined
  const column = file.error?.column
  return column === undefined ? `${name}:${line}` : `${name}:${line}:${column}`
}

/** The load error's words; a place at its end that names this very file is shown apart already. */
function messageOf(file: CustomToolFileInfo): string {
  const message = file.error?.message ?? 'It did not load.'
  if (file.error?.line === undefined) return message
  const at = message.lastIndexOf(file.path)
  if (at === -1 || !/^:\d+(:\d+)?\s*$/.test(message.slice(at + file.path.length))) return message
  return message.slice(0, at).trim() || message
}

function FileDetails({ file, name }: { file: CustomToolFileInfo; name: string }) {
  switch (file.status) {
    case 'metadata':
      return <p className="custom-file-note">metadata, never run</p>
    case 'duplicate':
      return (
        <p className="custom-file-note">
          same file as <code>{file.duplicateOf}</code>
        </p>
      )
    case 'untrusted':
      return <p className="custom-file-note">not run until you trust the project folder</p>
    case 'changed':
      return (
        <p className="custom-file-note">
          added or edited since you trusted the project folder: not run until you trust its changes
        </p>
      )
    case 'pending':
      return <p className="custom-file-note">not loaded yet</p>
    case 'failed': {
      const place = placeOf(name, file)
      return (
        <p className="custom-file-error">
          {place && <code className="custom-file-place">{place}</code>} {messageOf(file)}
        </p>
      )
    }
    case 'loaded':
    case 'conflict':
      return (
        <>
          {file.conflicts && file.conflicts.length > 0 && (
            <ul className="custom-file-conflicts">
              {file.conflicts.map((conflict) => (
                <li key={conflict.name}>
                  <code>{conflict.name}</code> is taken by {conflict.heldBy}
                </li>
              ))}
            </ul>
          )}
          {file.tools.length > 0 ? (
            <ul className="custom-file-tools" aria-label={`Tools of ${name}`}>
              {file.tools.map((tool) => (
                <li key={tool.name}>
                  <code className="tool-name">{tool.name}</code>
                  <strong className="custom-tool-label">{tool.label}</strong>
                  <span className="custom-tool-description">{tool.description}</span>
                </li>
              ))}
            </ul>
          ) : (
            file.status === 'loaded' && <p className="custom-file-note">No tools.</p>
          )}
        </>
      )
  }
}

/** One file of a folder: its path, how loading it went, its tools or why it has none. */
function FileRow({
  file,
  folder,
  onShowLog,
}: {
  file: CustomToolFileInfo
  folder: string
  onShowLog(file: string, name: string): void
}) {
  const name = pathIn(folder, file.path)
  return (
    <li className={`custom-file custom-file--${file.status}`}>
      <div className="custom-file-head">
        <code className="custom-file-path" title={file.path}>
          {name}
        </code>
        <span className={STATUS_TAGS[file.status]}>{STATUS_LABELS[file.status]}</span>
        {file.logFile && (
          <button
            type="button"
            className="small"
            aria-label={`Log of ${name}`}
            onClick={() => onShowLog(file.path, name)}
          >
            Log
          </button>
        )}
      </div>
      <FileDetails file={file} name={name} />
    </li>
  )
}

const same = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && a.every((value, index) => value === b[index])

/**
 * The variables the folder's modules get besides the allowlist, edited as a list and saved with
 * its own button: a module never sees Atelier's provider keys and tokens unless named here.
 */
function PassedVariables({
  api,
  folder,
  track,
  onChanged,
}: Pick<CustomToolFolderCardProps, 'api' | 'folder' | 'track' | 'onChanged'>) {
  const id = useId()
  const saved = folder.environment
  const [draft, setDraft] = useState<string[]>(saved)
  const [error, setError] = useState<string>()
  const [saving, setSaving] = useState(false)
  const savedText = JSON.stringify(saved)

  // The saved list (from here, the CLI or another window) replaces the draft.
  useEffect(() => {
    setDraft(JSON.parse(savedText) as string[])
  }, [savedText])

  const cleaned = draft.map((name) => name.trim()).filter(Boolean)

  async function save() {
    setSaving(true)
    setError(undefined)
    try {
      await track(() => api.customTools.setEnvironment({ folder: folder.path, names: cleaned }))
      await onChanged()
    } catch (failure) {
      setError(errorMessage(failure))
    } finally {
      setSaving(false)
    }
  }

  return (
    <div className="custom-folder-environment">
      <StringListField
        label="Pass these variables"
        values={draft}
        onChange={setDraft}
        describedBy={`${id}-hint`}
        invalid={error ? true : undefined}
        placeholder="JAVA_HOME"
      />
      <p className="field-hint" id={`${id}-hint`}>
        The modules and the programs they start get only PATH, HOME, USER, LOGNAME, LANG, LC_*, TERM, SHELL,
        TMPDIR, TMP, TEMP, PWD, TZ from Atelier’s environment, and the variables named here (a trailing *
        matches a prefix: JAVA_*) — never your API keys and tokens unless you name them.
      </p>
      {error && (
        <p className="field-error" role="alert">
          {error}
        </p>
      )}
      <div className="form-actions">
        <button
          type="button"
          className="small"
          disabled={saving || same(cleaned, saved)}
          aria-busy={saving || undefined}
          onClick={() => void save()}
        >
          Save variables
        </button>
      </div>
    </div>
  )
}

/**
 * A tool folder: where it is and where it comes from, whether it may run code (a project's folder,
 * once trusted, as its modules were then) and whether its host process runs, every file it holds,
 * and the variables its modules get.
 */
export function CustomToolFolderCard({
  api,
  folder,
  track,
  onChanged,
  onShowLog,
}: CustomToolFolderCardProps) {
  const id = useId()
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<string>()
  const project = folder.project
  const changed = folder.files.some((file) => file.status === 'changed')

  async function setTrusted(trusted: boolean) {
    if (project === undefined) return
    setBusy(true)
    setError(undefined)
    try {
      await track(() =>
        trusted ? api.folders.trust({ folder: project }) : api.folders.untrust({ folder: project }),
      )
      await onChanged()
    } catch (failure) {
      setError(errorMessage(failure))
    } finally {
      setBusy(false)
    }
  }

  return (
    <section className="item-card custom-folder" aria-labelledby={`${id}-path`}>
      <div className="item-card-head">
        <div className="item-card-title">
          <h3 id={`${id}-path`} className="custom-folder-path">
            <code>{folder.path}</code>
          </h3>
          <span className="tag">{ORIGIN_LABELS[folder.origin]}</span>
          {project !== undefined &&
            (folder.trusted ? (
              <span className="tag tag-success">Trusted</span>
            ) : (
              <span className="tag tag-warning">Not trusted</span>
            ))}
        </div>
        {project !== undefined && (
          <div className="item-card-actions">
            {changed && (
              <button
                type="button"
                className="small primary"
                disabled={busy}
                aria-describedby={`${id}-path`}
                onClick={() => void setTrusted(true)}
              >
                Trust the changes
              </button>
            )}
            <button
              type="button"
              className={folder.trusted ? 'small' : 'small primary'}
              disabled={busy}
              aria-describedby={`${id}-path`}
              onClick={() => void setTrusted(!folder.trusted)}
            >
              {folder.trusted ? 'Stop trusting' : 'Trust this folder'}
            </button>
          </div>
        )}
      </div>
      <dl className="facts">
        {project !== undefined && (
          <div>
            <dt>Project folder</dt>
            <dd>
              <code>{project}</code>
            </dd>
          </div>
        )}
        <div>
          <dt>Host process</dt>
          <dd className={`mcp-status mcp-status-${folder.running ? 'running' : 'off'}`}>
            <span className="mcp-status-dot" aria-hidden="true" />
            <span className="mcp-status-label">{folder.running ? 'Running' : 'Not running'}</span>
          </dd>
        </div>
      </dl>
      {error && (
        <Notice tone="danger" role="alert">
          {error}
        </Notice>
      )}
      <ul className="boxed-list custom-files" aria-label={`Files in ${folder.path}`}>
        {folder.files.map((file) => (
          <FileRow key={file.path} file={file} folder={folder.path} onShowLog={onShowLog} />
        ))}
      </ul>
      <PassedVariables api={api} folder={folder} track={track} onChanged={onChanged} />
    </section>
  )
}
