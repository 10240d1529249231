/** Whether a program Atelier starts for tools (an MCP server, a tool service) runs in the sandbox. */
export function SandboxTag({ sandboxed }: { sandboxed: boolean }) {
  return sandboxed ? (
    <span
      className="tag tag-success"
      title="It runs in the sandbox: Settings → Sandbox says what that allows."
    >
      Sandboxed
    </span>
  ) : (
    <span className="tag" title="It runs with your own permissions.">
      Not sandboxed
    </span>
  )
}
