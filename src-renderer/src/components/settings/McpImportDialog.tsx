import type { AtelierApi } from '../../../../src-shared/api'
import { JsonDialog } from './JsonDialog'

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

/** Servers from an `mcpServers` JSON, as Claude Desktop and Cursor write it: pasted, or read from a file. */
export function McpImportDialog({ api, onImported, onClose }: McpImportDialogProps) {
  return (
    <JsonDialog
      title="Import MCP servers"
      className="mcp-dialog"
      description="Paste an mcpServers JSON, as Claude Desktop (claude_desktop_config.json) and Cursor (mcp.json) write it, or choose the file. Servers whose name is already used are skipped; each local command waits for your approval before it first runs."
      fieldLabel="mcpServers JSON"
      placeholder={EXAMPLE}
      submitLabel="Import"
      submit={async (json) => onImported(await api.mcp.import({ json }))}
      onClose={onClose}
    />
  )
}
