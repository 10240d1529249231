import { type FormEvent, useId, useState } from 'react'
import type { AtelierApi } from '../../../../src-shared/api'
import { MASKED_VALUE } from '../../../../src-shared/secrets'
import {
  type BrokerAuth,
  type BrokerInfo,
  type BrokerInput,
  MAX_DISCOVER_WAIT_MS,
} from '../../../../src-shared/tool-services'
import { fieldErrors } from './field-errors'
import { LastErrors } from './LastErrors'
import { Notice } from './Notice'
import { splitRequestError } from './request-errors'
import { TextField } from './TextField'

type AuthKind = BrokerAuth['kind']
type Field = 'url' | 'user' | 'secret' | 'file' | 'caFile' | 'discoverWaitMs'
const FIELDS: readonly Field[] = ['url', 'user', 'secret', 'file', 'caFile', 'discoverWaitMs']

const AUTH_KINDS: { kind: AuthKind; label: string }[] = [
  { kind: 'none', label: 'None' },
  { kind: 'token', label: 'Token' },
  { kind: 'user', label: 'User and password' },
  { kind: 'nkey', label: 'NKey seed' },
  { kind: 'creds', label: 'Creds file' },
]

/** The label of the secret each kind of auth takes; kinds without one are absent. */
const SECRET_LABEL: Partial<Record<AuthKind, string>> = {
  token: 'Token',
  user: 'Password',
  nkey: 'NKey seed',
}

const URL_PATTERN = /^(nats|tls|ws|wss):\/\/\S+$/

const STATUS: Record<BrokerInfo['status'], { label: string; kind: string }> = {
  off: { label: 'Off', kind: 'off' },
  connecting: { label: 'Connecting', kind: 'approval' },
  connected: { label: 'Connected', kind: 'running' },
  reconnecting: { label: 'Reconnecting', kind: 'approval' },
  failed: { label: 'Failed', kind: 'failed' },
}

/** What the form starts from: the broker as saved (the secret is never among it, the URL's credentials masked). */
function formOf(broker: BrokerInfo) {
  return {
    url: broker.url ?? '',
    kind: broker.auth.kind,
    user: broker.auth.kind === 'user' ? broker.auth.user : '',
    file: broker.auth.kind === 'creds' ? broker.auth.file : '',
    caFile: broker.caFile ?? '',
    discoverWaitMs: String(broker.discoverWaitMs),
  }
}

/**
 * The NATS broker the services announce themselves on and take requests from: its address, how
 * Atelier signs in, and how the connection stands now. The secret is write-only, as providers' keys.
 */
export function BrokerCard({
  api,
  broker,
  onSaved,
}: {
  api: AtelierApi
  broker: BrokerInfo
  onSaved(broker: BrokerInfo): void
}) {
  const id = useId()
  const [form, setForm] = useState(() => formOf(broker))
  const [secret, setSecret] = useState('')
  const [showSecret, setShowSecret] = useState(false)
  const [errors, setErrors] = useState<Partial<Record<Field, string>>>({})
  const [formError, setFormError] = useState<string>()
  const [saved, setSaved] = useState(false)
  const [saving, setSaving] = useState(false)
  const secretLabel = SECRET_LABEL[form.kind]
  const status = STATUS[broker.status]
  const edit = (changes: Partial<typeof form>) => {
    setForm((current) => ({ ...current, ...changes }))
    setSaved(false)
  }

  function validate(): Partial<Record<Field, string>> {
    const found: Partial<Record<Field, string>> = {}
    const url = form.url.trim()
    if (url && !URL_PATTERN.test(url))
      found.url = 'Enter an address such as nats://127.0.0.1:4222 (nats://, tls://, ws:// or wss://).'
    if (form.kind === 'user' && !form.user.trim()) found.user = 'Enter the user name.'
    if (form.kind === 'creds' && !form.file.trim()) found.file = 'Enter the path of the .creds file.'
    if (secretLabel && !secret && !broker.hasSecret) found.secret = `Enter the ${secretLabel.toLowerCase()}.`
    if (!/^\d+$/.test(form.discoverWaitMs.trim()) || Number(form.discoverWaitMs) > MAX_DISCOVER_WAIT_MS)
      found.discoverWaitMs = `Enter a whole number of milliseconds from 0 to ${MAX_DISCOVER_WAIT_MS}.`
    return found
  }

  async function submit(event: FormEvent) {
    event.preventDefault()
    const found = validate()
    setErrors(found)
    setFormError(undefined)
    setSaved(false)
    if (Object.keys(found).length > 0) return
    const auth: BrokerAuth =
      form.kind === 'user'
        ? { kind: 'user', user: form.user.trim() }
        : form.kind === 'creds'
          ? { kind: 'creds', file: form.file.trim() }
          : { kind: form.kind }
    const input: BrokerInput = {
      url: form.url.trim() || null,
      auth,
      caFile: form.caFile.trim() || null,
      discoverWaitMs: Number(form.discoverWaitMs.trim()),
      ...(secretLabel && secret && { secret }),
    }
    setSaving(true)
    try {
      const next = await api.services.setBroker(input)
      setForm(formOf(next))
      setSecret('')
      setSaved(true)
      onSaved(next)
    } catch (failure) {
      const split = splitRequestError(failure, FIELDS, (_field, message) => message)
      setErrors(split.fields)
      setFormError(split.form)
    } finally {
      setSaving(false)
    }
  }

  const fields = fieldErrors<Field>(id, errors)
  return (
    <form className="item-card broker-card" aria-labelledby={`${id}-title`} noValidate onSubmit={submit}>
      <div className="item-card-head">
        <div className="item-card-title">
          <h3 id={`${id}-title`}>Broker</h3>
          <span
            className={`mcp-status mcp-status-${status.kind}`}
            role="status"
            aria-label={`Broker status: ${status.label}`}
          >
            <span className="mcp-status-dot" aria-hidden="true" />
            <span className="mcp-status-label">{status.label}</span>
          </span>
        </div>
      </div>
      <p className="muted broker-intro">
        A NATS server that services answer on; services on it can also announce themselves. Leave the URL
        empty to use stdio services only.
      </p>
      <Notice tone="info" title="Every client on the broker">
        <p className="broker-notice">
          A broker without permissions lets every client on it read each call and its answer, answer in a
          service’s place and announce services of its own. Use one that only you and your services can reach,
          with credentials and per-service permissions. A service with <code>"reply-to": "inbox"</code>{' '}
          answers each call on a subject of its own, so a client listening on its response queue hears none of
          its answers.
        </p>
      </Notice>
      {broker.warning && (
        <Notice tone="warning" title="Open to anyone who reaches it">
          <p className="broker-notice">{broker.warning}</p>
        </Notice>
      )}
      {broker.error && (
        <p className="field-error broker-error" role="alert">
          {broker.error}
        </p>
      )}
      <LastErrors errors={broker.errors} />
      <div className="editor-grid">
        <TextField
          fields={fields}
          field="url"
          label="Broker URL"
          value={form.url}
          onChange={(url) => edit({ url })}
          spellCheck={false}
          placeholder="nats://127.0.0.1:4222"
          hint={`Several servers of one cluster: separate them with commas. A user and password in the URL (nats://user:password@host) are stored encrypted: they read ${MASKED_VALUE}, and leaving them so keeps them.`}
        />
        <div className="field">
          <label className="field-label" htmlFor={`${id}-auth`}>
            Authentication
          </label>
          <select
            id={`${id}-auth`}
            value={form.kind}
            onChange={(event) => edit({ kind: event.target.value as AuthKind })}
          >
            {AUTH_KINDS.map(({ kind, label }) => (
              <option key={kind} value={kind}>
                {label}
              </option>
            ))}
          </select>
        </div>
        {form.kind === 'user' && (
          <TextField
            fields={fields}
            field="user"
            label="User"
            value={form.user}
            onChange={(user) => edit({ user })}
            autoComplete="off"
            spellCheck={false}
          />
        )}
        {form.kind === 'creds' && (
          <TextField
            fields={fields}
            field="file"
            label="Creds file"
            value={form.file}
            onChange={(file) => edit({ file })}
            spellCheck={false}
            placeholder="/home/me/.nkeys/creds/user.creds"
            hint="The path of a .creds file (a user JWT and its nkey seed), read by Atelier when it connects."
          />
        )}
        {secretLabel && (
          <div className="field">
            <label className="field-label" htmlFor={fields.idOf('secret')}>
              {secretLabel}
            </label>
            <div className="secret-row">
              <input
                id={fields.idOf('secret')}
                type={showSecret ? 'text' : 'password'}
                value={secret}
                autoComplete="off"
                spellCheck={false}
                placeholder={broker.hasSecret ? '••••••••  (stored)' : ''}
                aria-invalid={fields.invalid('secret')}
                aria-describedby={fields.described('secret', `${id}-secret-hint`)}
                onChange={(event) => {
                  setSecret(event.target.value)
                  setSaved(false)
                }}
              />
              <button
                type="button"
                aria-pressed={showSecret}
                aria-controls={fields.idOf('secret')}
                onClick={() => setShowSecret((shown) => !shown)}
              >
                {showSecret ? `Hide ${secretLabel.toLowerCase()}` : `Show ${secretLabel.toLowerCase()}`}
              </button>
            </div>
            {fields.errorOf('secret')}
            <p className="field-hint" id={`${id}-secret-hint`}>
              {broker.hasSecret
                ? 'A secret is stored (encrypted); leave this empty to keep it, or type a new one to replace it.'
                : 'Stored encrypted, like providers’ API keys, and never shown again.'}
            </p>
          </div>
        )}
        <TextField
          fields={fields}
          field="caFile"
          label="CA file"
          value={form.caFile}
          onChange={(caFile) => edit({ caFile })}
          spellCheck={false}
          placeholder="/etc/ssl/private-ca.pem"
          hint="Optional: the certificate of a private CA, for a broker whose TLS certificate it signed."
        />
        <TextField
          fields={fields}
          field="discoverWaitMs"
          label="Wait for announcements (ms)"
          value={form.discoverWaitMs}
          onChange={(discoverWaitMs) => edit({ discoverWaitMs })}
          inputMode="numeric"
          hint="Once connected, a turn waits up to this long for the announced services you turned on to announce themselves, and goes on as soon as they have."
        />
      </div>
      {formError && (
        <Notice tone="danger" role="alert">
          {formError}
        </Notice>
      )}
      <div className="form-actions">
        <button type="submit" className="primary" disabled={saving} aria-busy={saving || undefined}>
          Save broker
        </button>
        {saved && (
          <span className="form-status" role="status">
            Saved.
          </span>
        )}
      </div>
    </form>
  )
}
