import { providerWords } from '../../../../src-shared/providers'
import { SettingsLinkText } from '../SettingsLinkText'
import { ChatIcon } from './ChatIcon'
import type { ConversationState, RetryNotice } from './conversation'

interface TurnBannersProps {
  retry: RetryNotice | null
  unavailableServers: ConversationState['unavailableServers']
}

/**
 * What the running turn is getting around: a provider hiccup being retried, in the provider's own
 * words first (gone once the stream resumes) and MCP servers it could not reach (until the next turn).
 */
export function TurnBanners({ retry, unavailableServers }: TurnBannersProps) {
  return (
    <div className="retry-banner-slot" role="status">
      {retry && (
        <p className="retry-banner">
          <ChatIcon name="retry" size={14} />
          <span>
            {providerWords(retry.message) ?? `The provider did not answer (${retry.message})`} — trying again
            in {Math.max(1, Math.round(retry.delayMs / 1000))} s, attempt {retry.attempt + 1}.
          </span>
        </p>
      )}
      {unavailableServers.map(({ name, error }) => (
        <p key={name} className="retry-banner">
          <ChatIcon name="alert" size={14} />
          <span>
            MCP server “{name}” is unavailable, so its tools are not offered:{' '}
            <SettingsLinkText text={error} />.
          </span>
        </p>
      ))}
    </div>
  )
}
