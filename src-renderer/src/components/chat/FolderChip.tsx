import { useId } from 'react'
import { ChatIcon } from './ChatIcon'
import { shortPath } from './folder-path'

interface FolderChipProps {
  /** The bound folder; null when none is. */
  folder: string | null
  /** The bound folder is gone (deleted, moved, not mounted): tools are refused until another is chosen. */
  missing: boolean
  /** The person's home folder, shown as `~`; undefined until known. */
  home: string | undefined
  onChoose(): void
  onClear(): void
}

/**
 * Where the chat works: the folder as a person says it (`~/code/project`, a long middle elided),
 * the whole path on hover and as the chip's description, and the buttons to change or unbind it.
 * A folder that is gone says so, and why nothing runs.
 */
export function FolderChip({ folder, missing, home, onChoose, onClear }: FolderChipProps) {
  const fullId = useId()
  return (
    <fieldset
      aria-label="Project folder"
      aria-describedby={folder ? fullId : undefined}
      className={`folder-control${folder ? '' : ' folder-control--empty'}${folder && missing ? ' folder-control--missing' : ''}`}
    >
      <span className="folder-control-icon">
        <ChatIcon name="folder" size={15} />
      </span>
      {folder ? (
        <>
          {/* Right to left outside, the path isolated inside: too long, it loses its start, not its name. */}
          <span className="folder-control-path" title={folder}>
            <bdi>{shortPath(folder, home)}</bdi>
          </span>
          <span id={fullId} className="visually-hidden">
            {folder}
          </span>
          {missing && (
            <span
              className="folder-control-missing"
              role="status"
              title="The folder was deleted, moved, or is on a drive that is not mounted. Tools are refused until you choose a folder."
            >
              Folder missing
            </span>
          )}
        </>
      ) : (
        <span className="folder-control-path muted">No folder bound</span>
      )}
      {/* Where the header is narrow, the button keeps its name but shows only the folder icon. */}
      <button
        type="button"
        className="head-button folder-control-choose"
        title="Choose folder"
        onClick={onChoose}
      >
        <span className="folder-control-choose-icon">
          <ChatIcon name="folder" size={14} />
        </span>
        <span className="folder-control-label">Choose folder</span>
      </button>
      {folder && (
        <button
          type="button"
          className="head-button head-button--quiet folder-control-clear"
          aria-label="Clear folder"
          title="Unbind the folder"
          onClick={onClear}
        >
          <ChatIcon name="close" size={14} />
        </button>
      )}
    </fieldset>
  )
}
