import type { ChatMode } from '../../../../src-shared/contract'
import { ChatIcon } from './ChatIcon'

interface EmptyConversationProps {
  /** The providers list came back empty. */
  noProvider: boolean
  workingDir: string | null
  mode: ChatMode
}

/** A new chat teaches what it needs: a model to talk to, and a folder to work in. */
export function EmptyConversation({ noProvider, workingDir, mode }: EmptyConversationProps) {
  return (
    <div className="empty-conversation">
      <div className="empty-hero">
        <span className="empty-hero-icon">
          <ChatIcon name="sparkle" size={22} />
        </span>
        <h2>What shall we work on?</h2>
        <p>
          {workingDir && mode === 'agent'
            ? 'Ask about the project, or ask for a change: the agent reads, searches and edits in the bound folder, and every tool call shows up here.'
            : 'Ask anything. Every tool the agent uses shows up here as it runs.'}
        </p>
      </div>

      {noProvider && (
        <section className="teach-card" aria-labelledby="teach-provider">
          <h3 id="teach-provider">
            <ChatIcon name="key" size={16} /> Connect a model
          </h3>
          <p>No provider is set up in Atelier yet. Any of these works:</p>
          <ul>
            <li>
              <strong>OpenAI, Gemini or Anthropic</strong>: set <code>OPENAI_API_KEY</code>,{' '}
              <code>GEMINI_API_KEY</code> or <code>ANTHROPIC_API_KEY</code> in the environment Atelier starts
              from — it uses the first key it finds — or add a provider with its key in{' '}
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
            start there, and tools stay inside it), and runs shell commands there if you turned a shell on in{' '}
            <strong>Settings → Tools</strong>. Without a folder, this chat is a plain conversation.
          </p>
        </section>
      )}
    </div>
  )
}
