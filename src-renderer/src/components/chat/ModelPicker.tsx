import type { AtelierApi } from '../../../../src-shared/api'
import type { Chat } from '../../../../src-shared/contract'
import type { ProviderInfo } from '../../../../src-shared/providers'
import type { ChatChanges } from './ChatHeader'
import { ModelField } from './ModelField'

const KIND_NAMES: Record<ProviderInfo['kind'], string> = {
  'openai-responses': 'OpenAI',
  'openai-chat': 'OpenAI-compatible',
  gemini: 'Gemini',
  anthropic: 'Anthropic',
}

/**
 * The chat's provider and model, in the composer's toolbar (where peers put them): what the next
 * prompt goes to is chosen next to where it is written.
 */
export function ModelPicker({
  api,
  chat,
  providers,
  onConfigure,
}: {
  api: AtelierApi
  chat: Chat
  providers: ProviderInfo[] | undefined
  onConfigure(changes: ChatChanges): Promise<void>
}) {
  const first = providers?.[0]
  const effective = chat.provider === null ? first : providers?.find((p) => p.id === chat.provider)
  const knownProvider = chat.provider === null || providers === undefined || effective !== undefined
  return (
    <div className="model-picker">
      <select
        className="toolbar-chip"
        aria-label="Provider"
        value={chat.provider ?? first?.id ?? ''}
        title={effective ? `${effective.name} · ${KIND_NAMES[effective.kind]}` : undefined}
        onChange={(event) => void onConfigure({ provider: event.target.value || null })}
      >
        {/* Each provider once, by its name: a chat that names none uses the first, shown as chosen.
            The kind joins a name only where two share it; the select's title tells it always. */}
        {!first && <option value="">First provider set up</option>}
        {providers?.map((provider) => (
          <option key={provider.id} value={provider.id}>
            {providers.some((other) => other !== provider && other.name === provider.name)
              ? `${provider.name} · ${KIND_NAMES[provider.kind]}`
              : provider.name}
          </option>
        ))}
        {!knownProvider && chat.provider && <option value={chat.provider}>Removed provider</option>}
      </select>
      <ModelField
        api={api}
        providerId={effective?.id}
        value={chat.model}
        placeholder={effective?.defaultModel ?? 'Provider default'}
        onCommit={(model) => void onConfigure({ model })}
      />
    </div>
  )
}
