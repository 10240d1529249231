import { type FormEvent, useId, useRef, useState } from 'react'
import type { AtelierApi } from '../../../../src-shared/api'
import { errorMessage } from '../../errors'
import { Modal } from '../chat/Modal'

interface ServiceDescriptorDialogProps {
  api: AtelierApi
  /** The JSON to start from when editing a service: its descriptor and its tools' descriptors. */
  initial?: { id: string; json: string }
  onAdded(added: string[]): void
  onClose(): void
}

const EXAMPLE = `[
  {
    "id": "joke",
    "request-queue": "joke.requests",
    "response-queue": "joke.responses",
    "config-params": [{ "name": "style", "required": true }]
  },
  {
    "type": "tool-service",
    "name": "tell-joke",
    "description": "Tell a joke about a topic",
    "service": "joke",
    "style": "pun",
    "arguments": [{ "name": "topic", "type": "string", "description": "What the joke is about" }]
  }
]`

/**
 * Service and tool descriptors as the seed writes them, pasted or read from a .json file in the page
 * (FileReader works alike in the desktop app and on the web host). A descriptor whose id or name is
 * already used replaces the stored one, which is how editing works.
 */
export function ServiceDescriptorDialog({ api, initial, onAdded, onClose }: ServiceDescriptorDialogProps) {
  const id = useId()
  const file = useRef<HTMLInputElement>(null)
  const [json, setJson] = useState(initial?.json ?? '')
  const [fileName, setFileName] = useState<string>()
  const [adding, setAdding] = useState(false)
  const [error, setError] = useState<string>()
  const label = initial ? 'Save' : 'Add'

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

  async function submit(event: FormEvent) {
    event.preventDefault()
    if (!json.trim() || adding) return
    setAdding(true)
    setError(undefined)
    try {
      onAdded((await api.services.add({ json })).added)
    } catch (failure) {
      setError(errorMessage(failure))
      setAdding(false)
    }
  }

  return (
    <Modal
      title={initial ? `Edit ${initial.id}` : 'Add tool service descriptors'}
      description={
        initial
          ? 'Saving replaces the service and the tools of the same names. A tool taken out of this list stays: remove it from the card.'
          : 'Paste a service descriptor, a tool descriptor, or an array of them, or choose a .json file. A tool must name a service that is configured or in the same array.'
      }
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
            disabled={!json.trim() || adding}
            aria-busy={adding || undefined}
          >
            {label}
          </button>
        </>
      }
    >
      <form id={`${id}-form`} className="mcp-import" onSubmit={submit}>
        <div className="field">
          <div className="mcp-import-bar">
            <label className="field-label" htmlFor={`${id}-json`}>
              Descriptor JSON
            </label>
            {fileName && <span className="muted mcp-import-file">From {fileName}</span>}
            <button type="button" className="small" onClick={() => file.current?.click()}>
              Choose file…
            </button>
            <input
              ref={file}
              type="file"
              accept=".json,application/json"
              aria-label="Descriptor file"
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
            rows={14}
            value={json}
            spellCheck={false}
            placeholder={EXAMPLE}
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
