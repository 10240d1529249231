import { type FormEvent, useId, useState } from 'react'
import type { ProviderKind } from '../../../../src-shared/agent'
import type { AtelierApi } from '../../../../src-shared/api'
import { isAtelierErrorPayload } from '../../../../src-shared/errors'
import {
  endpointLabel,
  hasHostedSearch,
  isOfficialEndpoint,
  type KeyStorage,
  OFFICIAL_HOSTS,
  type ProviderInfo,
  type ProviderTestResult,
  sameServer,
} from '../../../../src-shared/providers'
import { errorMessage } from '../../errors'
import { ConnectionTest } from './ConnectionTest'
import { FormFooter } from './FormFooter'
import { fieldErrors } from './field-errors'
import { LocalServerDetection } from './LocalServerDetection'
import { Notice } from './Notice'
import { defaultProviderName, kindInfo, PROVIDER_KINDS, type ProviderPreset } from './provider-kinds'
import { splitRequestError } from './request-errors'
import { SwitchField } from './SwitchField'
import { TextField } from './TextField'

interface ProviderFormProps {
  api: AtelierApi
  keyStorage: KeyStorage
  /** The provider being edited; absent when adding one. */
  provider?: ProviderInfo
  preset?: ProviderPreset
  onDone(provider: ProviderInfo): void
  onCancel(): void
}

type Field = 'name' | 'baseUrl' | 'defaultModel' | 'apiKey' | 'contextWindow'
const FIELDS: readonly Field[] = ['name', 'baseUrl', 'defaultModel', 'apiKey', 'contextWindow']
const MIN_CONTEXT_WINDOW = 1024
const MAX_CONTEXT_WINDOW = 100_000_000

/** The context window as typed: digits, with any spaces, commas or underscores between them ignored. */
function parseTokens(text: string): number {
  const digits = text.trim().replace(/[\s,_]/g, '')
  return /^\d+$/.test(digits) ? Number(digits) : Number.NaN
}

const URL_PATTERN = /^https?:\/\/\S+$/

interface KeyPlan {
  kind: ProviderKind
  baseUrl: string
  typedKey: string
  forgetKey: boolean
  keyStorage: KeyStorage
  provider?: ProviderInfo
}

/**
 * Which key the provider's requests will carry, and where they go, for the form as it stands — the
 * rule the main process applies: a key from the environment goes only to the kind's official
 * endpoint, a stored key only to the server it was stored for.
 */
function keyDestination({ kind, baseUrl, typedKey, forgetKey, keyStorage, provider }: KeyPlan): string {
  const where = endpointLabel(kind, baseUrl)
  const environment = kindInfo(kind).keyVariables.find((v) => keyStorage.environmentKeys.includes(v))
  if (typedKey) return `The key you typed is stored encrypted and sent to ${where}.`
  if (provider?.keySource === 'stored' && !forgetKey) {
    if (sameServer(kind, baseUrl || null, provider.baseUrl)) {
      return `The stored key (encrypted) is sent to ${where}. Type a new one to replace it.`
    }
    return `The stored key was given for ${endpointLabel(kind, provider.baseUrl)}: saving this address forgets it. Type a key for ${where}, or leave it empty if that server needs none.`
  }
  if (isOfficialEndpoint(kind, baseUrl)) {
    if (environment) return `${environment} from the environment is sent to ${where}.`
    const variables = kindInfo(kind).keyVariables.join(' or ')
    return `No key: ${where} needs one. Set ${variables} in the environment${keyStorage.available ? ', or type one here' : ''}.`
  }
  const store = keyStorage.available ? ' — store one for it if it needs one' : ''
  const onlyOfficial = environment
    ? ` ${environment} from the environment goes only to ${OFFICIAL_HOSTS[kind]}.`
    : ''
  return `No key is sent to ${where}${store}.${onlyOfficial}`
}

/**
 * Adds or edits a provider. The API key is write-only: typed here, stored encrypted by the desktop
 * app, and never shown again — the form only says where the key comes from.
 */
export function ProviderForm({ api, keyStorage, provider, preset, onDone, onCancel }: ProviderFormProps) {
  const id = useId()
  const [kind, setKind] = useState(provider?.kind ?? preset?.kind ?? 'openai-responses')
  const [name, setName] = useState(provider?.name ?? preset?.name ?? '')
  const [baseUrl, setBaseUrl] = useState(provider?.baseUrl ?? preset?.baseUrl ?? '')
  const [defaultModel, setDefaultModel] = useState(provider?.defaultModel ?? '')
  const [contextWindow, setContextWindow] = useState(
    provider?.contextWindow ? String(provider.contextWindow) : '',
  )
  const [hostedSearch, setHostedSearch] = useState(provider?.hostedSearch ?? false)
  const [apiKey, setApiKey] = useState('')
  const [showKey, setShowKey] = useState(false)
  const [forgetKey, setForgetKey] = useState(false)
  const [errors, setErrors] = useState<Partial<Record<Field, string>>>({})
  const [formError, setFormError] = useState<string>()
  const [saving, setSaving] = useState(false)
  const info = kindInfo(kind)
  const variables = info.keyVariables.join(' or ')
  const keyDisabled = !keyStorage.available || forgetKey
  // A name left empty is made from the kind and the address, so the form needs nothing more to save.
  const fallbackName = defaultProviderName(kind, baseUrl)

  /** The models the typed settings reach, nothing saved; the stored key only where saving would keep it. */
  function testTyped(): Promise<ProviderTestResult> {
    const key = keyDisabled ? '' : apiKey.trim()
    return api.providers.test({
      kind,
      ...(baseUrl.trim() && { baseUrl: baseUrl.trim() }),
      ...(key && { apiKey: key }),
      ...(provider && !forgetKey && { id: provider.id }),
      ...(defaultModel.trim() && { model: defaultModel.trim() }),
    })
  }

  function validate(): Partial<Record<Field, string>> {
    const found: Partial<Record<Field, string>> = {}
    if (baseUrl.trim() && !URL_PATTERN.test(baseUrl.trim()))
      found.baseUrl = 'Enter an address that starts with http:// or https://, without spaces.'
    if (contextWindow.trim()) {
      const tokens = parseTokens(contextWindow)
      if (!Number.isInteger(tokens) || tokens < MIN_CONTEXT_WINDOW || tokens > MAX_CONTEXT_WINDOW)
        found.contextWindow = `Enter a whole number of tokens from ${MIN_CONTEXT_WINDOW.toLocaleString('en-US')} to ${MAX_CONTEXT_WINDOW.toLocaleString('en-US')}, or leave it empty.`
    }
    return found
  }

  async function submit(event: FormEvent) {
    event.preventDefault()
    const found = validate()
    setErrors(found)
    setFormError(undefined)
    if (Object.keys(found).length > 0) return
    const key = apiKey.trim()
    const windowTokens = contextWindow.trim() ? parseTokens(contextWindow) : null
    setSaving(true)
    try {
      const saved = provider
        ? await api.providers.update({
            id: provider.id,
            name: name.trim() || fallbackName,
            baseUrl: baseUrl.trim() || null,
            defaultModel: defaultModel.trim() || null,
            contextWindow: windowTokens,
            ...(hasHostedSearch(kind) && { hostedSearch }),
            ...(forgetKey ? { apiKey: null } : key ? { apiKey: key } : {}),
          })
        : await api.providers.create({
            kind,
            name: name.trim() || fallbackName,
            ...(baseUrl.trim() && { baseUrl: baseUrl.trim() }),
            ...(defaultModel.trim() && { defaultModel: defaultModel.trim() }),
            ...(key && { apiKey: key }),
            ...(windowTokens !== null && { contextWindow: windowTokens }),
            ...(hasHostedSearch(kind) && { hostedSearch }),
          })
      onDone(saved)
    } catch (error) {
      if (isAtelierErrorPayload(error) && error.code === 'key_storage_unavailable') {
        setErrors({ apiKey: error.message })
      } else {
        const split = splitRequestError(error, FIELDS, (field, message) =>
          field === 'baseUrl' ? 'Enter an address that starts with http:// or https://.' : message,
        )
        setErrors(split.fields)
        setFormError(split.form)
      }
    } finally {
      setSaving(false)
    }
  }

  const fields = fieldErrors<Field>(id, errors)
  const { described, errorOf } = fields

  const keyStatus = keyDestination({
    kind,
    baseUrl: baseUrl.trim(),
    typedKey: keyDisabled ? '' : apiKey.trim(),
    forgetKey,
    keyStorage,
    provider,
  })

  return (
    <form className="editor" aria-labelledby={`${id}-title`} noValidate onSubmit={submit}>
      <h3 id={`${id}-title`}>{provider ? `Edit ${provider.name}` : 'Add a provider'}</h3>
      {!provider && <LocalServerDetection api={api} onAdded={onDone} />}
      <div className="editor-grid">
        <div className="field">
          <label className="field-label" htmlFor={`${id}-kind`}>
            Kind
          </label>
          <select
            id={`${id}-kind`}
            value={kind}
            disabled={provider !== undefined}
            aria-describedby={`${id}-kind-hint`}
            onChange={(event) => setKind(event.target.value as typeof kind)}
          >
            {PROVIDER_KINDS.map((option) => (
              <option key={option.kind} value={option.kind}>
                {option.label}
              </option>
            ))}
          </select>
          <p className="field-hint" id={`${id}-kind-hint`}>
            {info.hint}
            {provider && ' The kind of a saved provider cannot change; add another one instead.'}
          </p>
        </div>
        <TextField
          fields={fields}
          field="name"
          label="Name"
          value={name}
          onChange={setName}
          maxLength={100}
          hint={`Optional. Empty: “${fallbackName}”.`}
        />
        <TextField
          fields={fields}
          field="baseUrl"
          label="Base URL"
          type="url"
          value={baseUrl}
          onChange={setBaseUrl}
          spellCheck={false}
          placeholder={info.baseUrlPlaceholder}
          hint={
            kind === 'openai-chat'
              ? 'The server’s OpenAI-compatible address, usually ending in /v1.'
              : 'Optional: leave empty for the public endpoint, or point at a proxy.'
          }
        />
        <TextField
          fields={fields}
          field="defaultModel"
          label="Default model"
          value={defaultModel}
          onChange={setDefaultModel}
          spellCheck={false}
          placeholder={info.modelPlaceholder}
          hint="Used when a chat does not choose one. Test connection, below, lists what the provider offers."
        />
        <TextField
          fields={fields}
          field="contextWindow"
          label="Context window (tokens)"
          value={contextWindow}
          onChange={setContextWindow}
          inputMode="numeric"
          spellCheck={false}
          placeholder="From the model listing or the table"
          hint="Optional: how many tokens its models hold. Empty: what the model listing says, else Atelier’s table of well-known models. Set it smaller to compact sooner."
        />
        {hasHostedSearch(kind) && (
          <SwitchField
            label="Web search by the provider"
            checked={hostedSearch}
            onChange={setHostedSearch}
            hint={`${info.label} searches the web itself and cites the pages in its answers; the web_search tool is then left out. Each search may be billed by the provider.`}
          />
        )}
        <div className="field field-wide">
          <label className="field-label" htmlFor={`${id}-apiKey`}>
            API key
          </label>
          <div className="secret-row">
            <input
              id={`${id}-apiKey`}
              type={showKey && !keyDisabled ? 'text' : 'password'}
              value={apiKey}
              disabled={keyDisabled}
              autoComplete="off"
              spellCheck={false}
              placeholder={provider?.keySource === 'stored' ? '••••••••  (stored)' : ''}
              aria-invalid={errors.apiKey ? true : undefined}
              aria-describedby={described('apiKey', `${id}-apiKey-hint`)}
              onChange={(event) => setApiKey(event.target.value)}
            />
            <button
              type="button"
              aria-pressed={showKey}
              aria-controls={`${id}-apiKey`}
              disabled={keyDisabled}
              onClick={() => setShowKey((shown) => !shown)}
            >
              {showKey ? 'Hide key' : 'Show key'}
            </button>
          </div>
          {errorOf('apiKey')}
          <div className="field-hint" id={`${id}-apiKey-hint`}>
            {keyStorage.available ? (
              <p>{keyStatus}</p>
            ) : (
              <p>
                Keys can be stored only by the desktop app, which encrypts them with the system keychain.{' '}
                {keyStatus}
              </p>
            )}
          </div>
          {keyStorage.available && keyStorage.plainText && (
            <Notice tone="warning" title="No system keychain">
              This computer offers no keychain, so a stored key is only obscured: anyone who can read your
              data folder can recover it. For {OFFICIAL_HOSTS[kind]}, prefer the environment variable{' '}
              {variables}.
            </Notice>
          )}
          {provider?.keySource === 'stored' && (
            <label className="choice">
              <input
                type="checkbox"
                checked={forgetKey}
                onChange={(event) => {
                  setForgetKey(event.target.checked)
                  if (event.target.checked) setApiKey('')
                }}
              />
              Remove the stored key
            </label>
          )}
        </div>
        <ConnectionTest
          name={name.trim() || fallbackName}
          run={testTyped}
          onPick={setDefaultModel}
          blocked={
            baseUrl.trim() && !URL_PATTERN.test(baseUrl.trim())
              ? 'Enter an address that starts with http:// or https://, without spaces.'
              : undefined
          }
          errorMessage={errorMessage}
        />
      </div>
      <FormFooter
        error={formError}
        saving={saving}
        submitLabel={provider ? 'Save provider' : 'Add provider'}
        onCancel={onCancel}
      />
    </form>
  )
}
