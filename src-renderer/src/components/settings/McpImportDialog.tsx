import { type FormEvent, useId, useRef, useState } from 'react'
import type { AtelierApi } from '../../../../src-shared/api'
import { errorMessage } from '../../errors'
import { Modal } from '../chat/Modal'
import { Notice } from './Notice'

interface McpImportDialogProps {
  api: AtelierApi
  onImported(result: { added: string[]; skipped: string[] }): void
  onClose(): void
}

const EXAMPLE = `{
  "mcpServers": {
    "filesystem": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-filesystem", "/path/to/folder"]
    }
  }
}`

/**
 * Servers from an `mcpServers` JSON, as Claude Desktop and Cursor write it: pasted, or read from a
 * file in the page (FileReader works alike in the desktop app and in a browser on the web host).
 */
export function McpImportDialog({ api, onImported, onClose }: McpImportDialogProps) {
  const id = useId()
  const file = useRef<HTMLInputElement>(null)
  const [json, setJson] = useState('')
  const [fileName, setFileName] = useState<string>()
  const [importing, setImporting] = useState(false)
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

  async function submit(event: FormEvent) {
    event.preventDefault()
    if (!json.trim() || importing) return
    setImporting(true)
    setError(undefined)
    try {
      onImported(await api.mcp.import({ json }))
    } catch (failure) {
      setError(errorMessage(failure))
      setImporting(false)
    }
  }

  return (
    <Modal
      title="Import MCP servers"
      className="mcp-dialog"
      description="Paste an mcpServers JSON, as Claude Desktop (claude_desktop_config.json) and Cursor (mcp.json) write it, or choose the file. Servers whose name is already used are skipped; each local command waits for your approval before it first runs."
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
            disabled={!json.trim() || importing}
            aria-busy={importing || undefined}
          >
            Import
          </button>
        </>
      }
    >
      <form id={`${id}-form`} className="mcp-import" onSubmit={submit}>
        <div className="field">
          <div className="mcp-import-bar">
            <label className="field-label" htmlFor={`${id}-json`}>
              mcpServers JSON
            </label>
            {fileName && <span className="muted mcp-import-file">From {fileName}</span>}
            <button type="button" className="small" onClick={() => file.current?.click()}>
              Choose file…
            </button>
            <input
              ref={file}
              type="file"
              accept=".json,application/json"
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
            rows={12}
            value={json}
            spellCheck={false}
            placeholder={EXAMPLE}
            onChange={(event) => {
              setJson(event.target.value)
              setFileName(undefined)
            }}
          />
        </div>
        {error && (
          <Notice tone="danger" role="alert">
            {error}
          </Notice>
        )}
      </form>
    </Modal>
  )
}
