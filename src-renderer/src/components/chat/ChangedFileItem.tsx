import { useState } from 'react'
import type { FileChangeDiff } from '../../../../src-shared/checkpoints'
import { ChatIcon } from './ChatIcon'
import { changedByText } from './checkpoint-words'
import { DiffView } from './DiffView'

/** One path a turn changed: how, by which call (or not by the agent), and its diff on demand. */
export function ChangedFileItem({ file }: { file: FileChangeDiff }) {
  const [open, setOpen] = useState(false)
  const by = changedByText(file)
  return (
    <li className="changed-file">
      <div className="changed-file-line">
        <span className={`changed-file-kind changed-file-kind--${file.change}`}>{file.change}</span>
        <code className="changed-file-path">{file.path}</code>
        <span className={`changed-file-by${file.by.length === 0 ? ' changed-file-by--other' : ''}`}>
          {by}
        </span>
        {file.diff !== undefined ? (
          <button
            type="button"
            className="changed-file-toggle"
            aria-expanded={open}
            aria-label={`Diff of ${file.path}`}
            onClick={() => setOpen((shown) => !shown)}
          >
            <ChatIcon name={open ? 'chevron-up' : 'chevron-down'} size={13} />
            {open ? 'Hide diff' : 'Diff'}
          </button>
        ) : (
          file.noDiff && <span className="changed-file-nodiff">No diff: {file.noDiff}</span>
        )}
      </div>
      {open && file.diff !== undefined && <DiffView path={file.path} patch={file.diff} />}
    </li>
  )
}
