import type { AtelierApi } from '../../../src-shared/api'
import type { Chat } from '../../../src-shared/contract'

const MODE_HINT: Record<Chat['mode'], string> = {
  agent: 'Agent mode: tools work inside the bound folder.',
  chat: 'Chat mode: the bound folder is not given to tools.',
}

export function ChatPane({ chat }: { api: AtelierApi; chat: Chat }) {
  return (
    <section className="chat-pane" aria-labelledby="chat-title">
      <header className="chat-header">
        <h1 id="chat-title">{chat.title}</h1>
        <dl className="chat-meta">
          <div>
            <dt>Mode</dt>
            <dd title={MODE_HINT[chat.mode]}>{chat.mode === 'agent' ? 'Agent' : 'Chat'}</dd>
          </div>
          <div>
            <dt>Folder</dt>
            <dd>{chat.workingDir ?? 'No folder bound'}</dd>
          </div>
          <div>
            <dt>Created</dt>
            <dd>
              <time dateTime={new Date(chat.createdAt).toISOString()}>
                {new Date(chat.createdAt).toLocaleString()}
              </time>
            </dd>
          </div>
        </dl>
      </header>
      <div className="conversation" role="log" aria-label="Conversation">
        <p className="muted">No messages yet.</p>
      </div>
    </section>
  )
}
