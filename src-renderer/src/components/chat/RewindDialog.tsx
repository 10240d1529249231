import { useEffect, useId, useState } from 'react'
import type { RestoreOutcome, RestoreScope } from '../../../../src-shared/checkpoints'
import { errorMessage } from '../../errors'
import { useApi } from './api-context'
import { ConflictChoices, type ConflictDecisions } from './ConflictChoices'
import { choicesOf } from './checkpoint-words'
import { DialogActions } from './DialogActions'
import { Modal } from './Modal'

const SCOPES: { scope: RestoreScope; label: string; hint: string }[] = [
  {
    scope: 'both',
    label: 'Files and conversation',
    hint: 'The folder and the chat go back to before this prompt.',
  },
  { scope: 'files', label: 'Files only', hint: 'The folder goes back; the conversation stays as it is.' },
  {
    scope: 'conversation',
    label: 'Conversation only',
    hint: 'The chat goes back; the folder stays as it is.',
  },
]

interface RewindDialogProps {
  chatId: string
  /** The turn whose prompt the chat goes back to before. */
  turnId: string
  /** That prompt's text, to say which one. */
  prompt: string
  onClose(): void
  onRewound(outcome: RestoreOutcome, scope: RestoreScope): void
}

/**
 * Rewind to before one of the person's prompts: the files, the conversation, or both. What the
 * files part would do is previewed (nothing is written until Rewind), and files changed since are
 * put to the person one by one; the later turns are kept in a new chat, not deleted.
 */
export function RewindDialog({ chatId, turnId, prompt, onClose, onRewound }: RewindDialogProps) {
  const api = useApi()
  const id = useId()
  const [scope, setScope] = useState<RestoreScope>('both')
  const [preview, setPreview] = useState<RestoreOutcome>()
  const [previewError, setPreviewError] = useState<string>()
  const [decisions, setDecisions] = useState<ConflictDecisions>({})
  const [busy, setBusy] = useState(false)
  const [failure, setFailure] = useState<string>()
  const withFiles = scope !== 'conversation'

  useEffect(() => {
    let current = true
    setPreview(undefined)
    setPreviewError(undefined)
    api.checkpoints.rewind({ chatId, turnId, scope, preview: true }).then(
      (outcome) => current && setPreview(outcome),
      (error) => current && setPreviewError(errorMessage(error)),
    )
    return () => {
      current = false
    }
  }, [api, chatId, turnId, scope])

  const confirm = async () => {
    if (!preview) return
    setBusy(true)
    setFailure(undefined)
    try {
      const choices = choicesOf(preview.conflicts, decisions)
      const outcome = await api.checkpoints.rewind({
        chatId,
        turnId,
        scope,
        ...(choices.length > 0 && { choices }),
      })
      onRewound(outcome, scope)
    } catch (error) {
      setFailure(errorMessage(error))
      setBusy(false)
    }
  }

  return (
    <Modal
      title="Rewind to here"
      description={
        <>
          Go back to before “<span className="rewind-prompt">{prompt}</span>”.
        </>
      }
      className="rewind-dialog"
      onClose={onClose}
      footer={
        <DialogActions
          action="Rewind"
          onAction={() => void confirm()}
          onCancel={onClose}
          disabled={!preview || busy}
        />
      }
    >
      <fieldset className="rewind-scopes">
        <legend>What to rewind</legend>
        {SCOPES.map((option) => (
          <label key={option.scope} className="rewind-scope">
            <input
              type="radio"
              name={`${id}-scope`}
              checked={scope === option.scope}
              aria-describedby={`${id}-${option.scope}`}
              onChange={() => setScope(option.scope)}
            />
            <span>
              <span className="rewind-scope-label">{option.label}</span>
              <span className="rewind-scope-hint" id={`${id}-${option.scope}`}>
                {option.hint}
              </span>
            </span>
          </label>
        ))}
      </fieldset>
      <section
        className="rewind-preview"
        aria-label="What the rewind does"
        aria-busy={!preview && !previewError}
      >
        {previewError && (
          <p className="inline-error" role="alert">
            {previewError}
          </p>
        )}
        {!preview && !previewError && <p className="muted">Looking at the folder…</p>}
        {preview && withFiles && (
          <>
            {preview.restored.length === 0 ? (
              <p>No files would change: the folder is as it was then.</p>
            ) : (
              <>
                <p>
                  {preview.restored.length === 1 ? 'This file goes' : 'These files go'} back to how{' '}
                  {preview.restored.length === 1 ? 'it was' : 'they were'}:
                </p>
                <ul className="rewind-files" aria-label="Files to restore">
                  {preview.restored.map((path) => (
                    <li key={path}>
                      <code>{path}</code>
                    </li>
                  ))}
                </ul>
              </>
            )}
            {preview.notRestorable.length > 0 && (
              <div className="rewind-not-restorable">
                <p>These cannot be brought back (too large to have been stored):</p>
                <ul>
                  {preview.notRestorable.map(({ path, reason }) => (
                    <li key={path}>
                      <code>{path}</code> — {reason}
                    </li>
                  ))}
                </ul>
              </div>
            )}
            {preview.conflicts.length > 0 && (
              <ConflictChoices conflicts={preview.conflicts} decisions={decisions} onChange={setDecisions} />
            )}
          </>
        )}
        {preview && scope !== 'files' && (
          <p>
            This prompt and everything after it move to a new chat, so you can return to them; this chat ends
            before it.
          </p>
        )}
      </section>
      {failure && (
        <p className="inline-error" role="alert">
          The rewind failed: {failure}
        </p>
      )}
    </Modal>
  )
}
