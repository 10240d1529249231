import { type ErrorCode, isAtelierErrorPayload, errorMessage as thrownMessage } from '../../src-shared/errors'

/** A readable message for anything a call rejected with: an error payload's words, or what was thrown. */
export function errorMessage(error: unknown): string {
  return isAtelierErrorPayload(error) ? error.message : thrownMessage(error)
}

/** What the person can do about a failure, besides Retry: open the provider's settings, or Settings → Providers. */
export type ErrorAction = 'provider' | 'providers'

/** A failure in plain words: what happened, what to do, and where the button goes. */
export interface ErrorAdvice {
  headline: string
  advice: string
  action?: ErrorAction
}

/** What the advice needs to know of the provider the chat uses, and of where keys can come from. */
export interface ProviderFacts {
  name: string
  keyVariable: string
  /** Whether a key from the environment is sent to it (the kind's official endpoint). */
  official: boolean
  officialHost: string
  /** Whether this window can store keys (the desktop app). */
  canStoreKeys: boolean
}

/** Where a key for this provider can come from, in this window: stored here, or the environment. */
function keyAdvice(provider: ProviderFacts | undefined, what: string): string {
  if (!provider) return `${what} Check the provider’s key in Settings → Providers.`
  if (provider.canStoreKeys) return `${what} Check or replace the key stored for ${provider.name}.`
  if (provider.official) {
    return `${what} This window cannot store API keys: set ${provider.keyVariable} in the environment Atelier starts in (for \`atelier web\`, the shell that runs it), then start it again.`
  }
  return `${what} This window cannot store API keys, and ${provider.keyVariable} from the environment is sent only to ${provider.officialHost}: store a key for ${provider.name} in the desktop app, or check the server’s own settings.`
}

/**
 * What a turn's failure means and what to do about it, for the codes a turn ends with (see
 * src-shared/errors.ts and src-main/providers/provider-error.ts); undefined for the rest, whose
 * message is shown as it is.
 */
export function adviseError(
  code: ErrorCode | undefined,
  message: string | null,
  provider: ProviderFacts | undefined,
): ErrorAdvice | undefined {
  const name = provider?.name ?? 'The provider'
  switch (code) {
    case 'provider_auth':
      return {
        headline: 'The provider refused the API key',
        advice: keyAdvice(
          provider,
          `${name} answered that the key is missing, wrong or not allowed for this model.`,
        ),
        action: 'provider',
      }
    case 'missing_api_key':
      return {
        headline: `${name} has no API key`,
        advice: keyAdvice(provider, 'Its official API needs one.'),
        action: 'provider',
      }
    case 'secret_unreadable':
      return {
        headline: 'The stored API key cannot be read',
        advice:
          'The system keychain no longer opens it (a new keychain, or another user). Type the key again in Settings → Providers.',
        action: 'provider',
      }
    case 'provider_rate_limited':
      return {
        headline: 'The provider is rate limiting requests',
        advice:
          'Too many requests, or the account’s quota is used up. Wait a little and Retry, or choose another model or provider.',
      }
    case 'provider_unavailable':
      return {
        headline: 'The provider is having trouble',
        advice: 'Its server answered with an error of its own; that usually passes. Retry in a moment.',
      }
    case 'provider_connection':
      return {
        headline: `${name} could not be reached`,
        advice:
          'Check that the server is running (a local one such as Ollama or LM Studio must be started) and that its address in Settings → Providers is right, then Retry.',
        action: 'provider',
      }
    case 'provider_context_overflow':
      return {
        headline: 'The conversation no longer fits the model',
        advice:
          'It is longer than the model’s context window. Compact it (Compact now, in the header) or start a new chat; a model with a larger window also helps.',
      }
    case 'provider_rejected':
      if (message && /\(404\)|model_not_found|not[ _]found/i.test(message)) {
        return {
          headline: 'The provider does not offer this model',
          advice: `Check the model name in the chat’s Model field, or ${name}’s default model in Settings → Providers (Test connection lists the models it offers).`,
          action: 'provider',
        }
      }
      return {
        headline: 'The provider refused the request',
        advice: 'It said why in the details below. The model or a setting may not fit this request.',
      }
    case 'no_provider':
      return {
        headline: 'No model provider is set up',
        advice: `Add one in Settings → Providers (Ollama or LM Studio on this computer need no key), or set OPENAI_API_KEY, GEMINI_API_KEY or ANTHROPIC_API_KEY in the environment Atelier starts in.`,
        action: 'providers',
      }
    case 'missing_model':
      return {
        headline: `Choose a model for ${name}`,
        advice: `It has no default model: type one in the chat’s Model field, or set a default model in Settings → Providers.`,
        action: 'provider',
      }
    case 'provider_error':
      return { headline: 'The provider failed', advice: 'Retry; the details below say what it answered.' }
    default:
      return undefined
  }
}
