import { type ApprovalMode, offersOnlyReads } from '../../../../src-shared/approvals'
import type { ChatMode } from '../../../../src-shared/contract'
import { ChatIcon } from './ChatIcon'

interface EmptyConversationProps {
  /** The providers list came back empty. */
  noProvider: boolean
  workingDir: string | null
  mode: ChatMode
  approvalMode: ApprovalMode
}

/** What asks first in a chat with a folder, by approval mode. */
const AGENT_MODE_APPROVALS: Record<ApprovalMode, string> = {
  ask: 'Reads run on their own; edits and commands ask you first.',
  'accept-edits': 'Reads and edits inside the folder run on their own; commands ask you first.',
  'read-only': 'Only reading tools are offered: nothing is changed.',
  'full-auto': 'Edits and commands run without asking; deny rules still hold.',
  plan: 'Only reading tools run: the agent proposes a plan, and nothing changes until you approve it.',
}

/** Protected files ask in every mode that can change anything. */
const PROTECTED_NOTE =
  ' Changes to protected files (.git, .env files, package.json, CI and editor settings, …) always ask.'

/**
 * A new chat teaches what it needs: a model to talk to, and a folder to work in. It says plainly
 * what the agent may do unasked, which differs between agent mode in a folder and chat mode.
 */
export function EmptyConversation({ noProvider, workingDir, mode, approvalMode }: EmptyConversationProps) {
  const inFolder = workingDir !== null && mode === 'agent'
  return (
    <div className="empty-conversation">
      <div className="empty-hero">
        <span className="empty-hero-icon">
          <ChatIcon name="sparkle" size={22} />
        </span>
        <h2>What shall we work on?</h2>
        {inFolder ? (
          <p>
            Ask about the project, or ask for a change: the agent reads, searches and edits in the bound
            folder, and every tool call shows up here. {AGENT_MODE_APPROVALS[approvalMode]}
            {!offersOnlyReads(approvalMode) && PROTECTED_NOTE}
          </p>
        ) : (
          <p>
            Ask anything. The agent can still use tools on this computer, but there is no folder to confine
            them,{' '}
            {approvalMode === 'full-auto'
              ? 'and the approval mode is Full auto: its file and shell calls run without asking.'
              : 'so every file and shell call asks you first, reads included.'}{' '}
            Every tool call shows up here.
          </p>
        )}
      </div>

      {/* Side by side where there is room, so the help fits above the composer. */}
      <div className="teach-cards">
        {noProvider && (
          <section className="teach-card" aria-labelledby="teach-provider">
            <h3 id="teach-provider">
              <ChatIcon name="key" size={16} /> Connect a model
            </h3>
            <p>No provider is set up in Atelier yet. Any of these works:</p>
            <ul>
              <li>
                <strong>OpenAI, Gemini or Anthropic</strong>: set <code>OPENAI_API_KEY</code>,{' '}
                <code>GEMINI_API_KEY</code> or <code>ANTHROPIC_API_KEY</code> in the environment Atelier
                starts from — it uses the first key it finds — or add a provider with its key in{' '}
                <strong>Settings → Providers</strong>.
              </li>
              <li>
                <strong>A model on this computer</strong>: any OpenAI-compatible server, such as Ollama at{' '}
                <code>http://127.0.0.1:11434/v1</code> or LM Studio. Add it in{' '}
                <strong>Settings → Providers</strong> as “OpenAI-compatible” with that base URL; it needs no
                key.
              </li>
            </ul>
          </section>
        )}

        {!workingDir && (
          <section className="teach-card" aria-labelledby="teach-folder">
            <h3 id="teach-folder">
              <ChatIcon name="folder" size={16} /> Bind a project folder
            </h3>
            <p>
              <strong>Choose folder</strong> above binds this chat to a folder and turns on agent mode. The
              agent then works in that folder: it lists, reads, searches and edits its files (relative paths
              start there, and tools stay inside it), and runs shell commands there if you turned a shell on
              in <strong>Settings → Tools</strong>. What runs without asking then follows the{' '}
              <strong>Approval mode</strong> above.
            </p>
          </section>
        )}
      </div>
    </div>
  )
}
