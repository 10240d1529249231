import { type FormEvent, type ReactNode, useId, useRef, useState } from 'react'
import { errorMessage } from '../../errors'
import { Modal } from '../chat/Modal'

interface JsonDialogProps {
  title: string
  description: ReactNode
  /** The text field's label, which is also its accessible name. */
  fieldLabel: string
  placeholder: string
  initialJson?: string
  rows?: number
  submitLabel: string
  className?: string
  /** Sends the text; a rejection is shown at the field and the dialog stays open. */
  submit(json: string): Promise<void>
  onClose(): void
}

/**
 * A JSON document pasted, or read from a file in the page (FileReader works alike in the desktop
 * app and in a browser on the web host), then sent; what the receiver refuses is said at the field.
 */
export function JsonDialog({
  title,
  description,
  fieldLabel,
  placeholder,
  initialJson = '',
  rows = 12,
  submitLabel,
  className,
  submit,
  onClose,
}: JsonDialogProps) {
  const id = useId()
  const file = useRef<HTMLInputElement>(null)
  const [json, setJson] = useState(initialJson)
  const [fileName, setFileName] = useState<string>()
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<string>()

  async function readFile(chosen: File | undefined) {
    if (!chosen) return
    setError(undefined)
    try {
      setJson(await chosen.text())
      setFileName(chosen.name)
    } catch (failure) {
      setError(`Could not read ${chosen.name}: ${errorMessage(failure)}`)
    }
  }

  async function send(event: FormEvent) {
    event.preventDefault()
    if (!json.trim() || busy) return
    setBusy(true)
    setError(undefined)
    try {
      await submit(json)
    } catch (failure) {
      setError(errorMessage(failure))
      setBusy(false)
    }
  }

  return (
    <Modal
      title={title}
      description={description}
      {...(className && { className })}
      onClose={onClose}
      footer={
        <>
          <button type="button" onClick={onClose}>
            Cancel
          </button>
          <button
            type="submit"
            form={`${id}-form`}
            className="primary"
            disabled={!json.trim() || busy}
            aria-busy={busy || undefined}
          >
            {submitLabel}
          </button>
        </>
      }
    >
      <form id={`${id}-form`} className="mcp-import" onSubmit={send}>
        <div className="field">
          <div className="mcp-import-bar">
            <label className="field-label" htmlFor={`${id}-json`}>
              {fieldLabel}
            </label>
            {fileName && <span className="muted mcp-import-file">From {fileName}</span>}
            <button type="button" className="small" onClick={() => file.current?.click()}>
              Choose file…
            </button>
            <input
              ref={file}
              type="file"
              accept=".json,application/json"
              aria-label={`${fieldLabel} file`}
              hidden
              onChange={(event) => {
                void readFile(event.target.files?.[0])
                event.target.value = ''
              }}
            />
          </div>
          <textarea
            id={`${id}-json`}
            className="mono-input"
            rows={rows}
            value={json}
            spellCheck={false}
            placeholder={placeholder}
            aria-invalid={error ? true : undefined}
            aria-describedby={error ? `${id}-json-error` : undefined}
            onChange={(event) => {
              setJson(event.target.value)
              setFileName(undefined)
            }}
          />
          {error && (
            <p className="field-error" id={`${id}-json-error`} role="alert">
              {error}
            </p>
          )}
        </div>
      </form>
    </Modal>
  )
}
