import { type FormEvent, useId, useRef, useState } from 'react'
import type { AtelierApi } from '../../../../src-shared/api'
import { type ErrorCode, isAtelierErrorPayload } from '../../../../src-shared/errors'
import {
  isSecret,
  type McpOAuthSettings,
  type McpServerInfo,
  type McpServerInput,
  type SecretMarks,
} from '../../../../src-shared/mcp'
import { MASKED_VALUE } from '../../../../src-shared/secrets'
import { FolderField } from './FolderField'
import { FormFooter } from './FormFooter'
import { fieldErrors } from './field-errors'
import { splitRequestError } from './request-errors'
import { StringListField } from './StringListField'
import { SwitchField } from './SwitchField'
import { TextField } from './TextField'

interface McpServerFormProps {
  api: AtelierApi
  /** The server being edited; absent when adding one. */
  server?: McpServerInfo
  onDone(server: McpServerInfo): void
  onCancel(): void
}

type Transport = McpServerInput['transport']
type Field =
  | 'name'
  | 'command'
  | 'args'
  | 'env'
  | 'cwd'
  | 'url'
  | 'headers'
  | 'clientId'
  | 'clientSecret'
  | 'clientMetadataUrl'
  | 'clientPrivateKey'
  | 'signingAlgorithm'
  | 'scope'
const FIELDS: readonly Field[] = [
  'name',
  'command',
  'args',
  'env',
  'cwd',
  'url',
  'headers',
  'clientId',
  'clientSecret',
  'clientMetadataUrl',
  'clientPrivateKey',
  'signingAlgorithm',
  'scope',
]

/** The contract's rules, checked here first so the message can sit next to its field. */
const NAME_PATTERN = /^[a-zA-Z0-9_-]{1,32}$/
const URL_PATTERN = /^https?:\/\/\S+$/
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/
const HTTPS_URL = /^https:\/\/\S+$/
const SIGNING_ALGORITHM = /^(RS|PS|ES)(256|384|512)$/

type OAuthFields = Required<Omit<McpOAuthSettings, 'grant'>> & { machine: boolean }

/** The OAuth settings as typed, or the errors that stop them; blank fields are left out. */
function buildOAuth(
  fields: OAuthFields,
): { oauth?: McpOAuthSettings } | { errors: Partial<Record<Field, string>> } {
  const clientId = fields.clientId.trim()
  const clientSecret = fields.clientSecret.trim()
  const clientMetadataUrl = fields.clientMetadataUrl.trim()
  const clientPrivateKey = fields.clientPrivateKey.trim()
  const signingAlgorithm = fields.signingAlgorithm.trim()
  const scope = fields.scope.trim()
  const errors: Partial<Record<Field, string>> = {}
  if (clientMetadataUrl && !HTTPS_URL.test(clientMetadataUrl))
    errors.clientMetadataUrl = 'A client metadata document is an https:// address.'
  if ((clientSecret || clientPrivateKey) && !clientId)
    errors.clientId = 'A client secret or key goes with the client ID it was issued for.'
  if (clientPrivateKey && clientSecret)
    errors.clientPrivateKey = 'A machine client signs in with a secret or with a key, not both.'
  if (clientPrivateKey && !fields.machine) errors.clientPrivateKey = 'A private key is for a machine client.'
  if (signingAlgorithm && !SIGNING_ALGORITHM.test(signingAlgorithm))
    errors.signingAlgorithm = 'One of RS256, PS256, ES256 (or the 384 and 512 variants).'
  if (fields.machine && (!clientId || !(clientSecret || clientPrivateKey))) {
    const missing = 'A machine client signs in with its client ID and a secret or a private key.'
    if (!clientId) errors.clientId = missing
    if (!clientSecret && !clientPrivateKey) errors.clientSecret = missing
  }
  if (Object.keys(errors).length > 0) return { errors }
  const oauth: McpOAuthSettings = {
    ...(clientId && { clientId }),
    ...(clientSecret && { clientSecret }),
    ...(clientMetadataUrl && { clientMetadataUrl }),
    ...(clientPrivateKey && { clientPrivateKey }),
    ...(signingAlgorithm && { signingAlgorithm }),
    ...(fields.machine && { grant: 'client_credentials' as const }),
    ...(scope && { scope }),
  }
  return Object.keys(oauth).length > 0 ? { oauth } : {}
}

/** The AtelierError codes the service answers with, and the field each is about. */
const FIELD_OF_CODE: Partial<Record<ErrorCode, Field>> = {
  name_taken: 'name',
  invalid_name: 'name',
  invalid_url: 'url',
}

type Pairs = { pairs: Record<string, string> } | { error: string }

/** `KEY=VALUE` (environment) or `Name: value` (headers) lines; blank lines are skipped. */
function parsePairs(text: string, kind: 'env' | 'headers'): Pairs {
  const separator = kind === 'env' ? '=' : ':'
  const pairs: Record<string, string> = {}
  const lines = text.split('\n')
  for (const [index, raw] of lines.entries()) {
    const line = raw.replace(/\r$/, '')
    if (!line.trim()) continue
    const at = line.indexOf(separator)
    const key = at < 0 ? '' : line.slice(0, at).trim()
    // An environment value is passed exactly as typed; a header value loses its leading spaces, as HTTP does.
    const value = at < 0 ? '' : kind === 'env' ? line.slice(at + 1) : line.slice(at + 1).trim()
    const valid = kind === 'env' ? ENV_NAME.test(key) : HEADER_NAME.test(key)
    if (!valid) {
      return {
        error:
          kind === 'env'
            ? `Line ${index + 1}: write NAME=value, with a name of letters, digits and "_" (API_TOKEN=abc).`
            : `Line ${index + 1}: write Name: value (Authorization: Bearer abc).`,
      }
    }
    pairs[key] = value
  }
  return { pairs }
}

function formatPairs(pairs: Record<string, string> | undefined, kind: 'env' | 'headers'): string {
  return Object.entries(pairs ?? {})
    .map(([key, value]) => (kind === 'env' ? `${key}=${value}` : `${key}: ${value}`))
    .join('\n')
}

/**
 * The names written so far, in order, even while another line is still wrong, each with whether its
 * value reads masked: a value stored encrypted, kept as it is.
 */
function namesIn(text: string, kind: 'env' | 'headers'): { name: string; stored: boolean }[] {
  const separator = kind === 'env' ? '=' : ':'
  const valid = kind === 'env' ? ENV_NAME : HEADER_NAME
  const names = new Map<string, boolean>()
  for (const line of text.split('\n')) {
    const at = line.indexOf(separator)
    const name = at < 0 ? '' : line.slice(0, at).trim()
    if (valid.test(name)) names.set(name, line.slice(at + 1).trim() === MASKED_VALUE)
  }
  return [...names].map(([name, stored]) => ({ name, stored }))
}

/** The person's marks that still name a value: the contract refuses a mark without one. */
function marksFor(marks: SecretMarks, pairs: Record<string, string>): { secret?: SecretMarks } {
  const kept = Object.entries(marks).filter(([name]) => name in pairs)
  return kept.length > 0 ? { secret: Object.fromEntries(kept) } : {}
}

interface SecretMarksFieldProps {
  label: string
  names: { name: string; stored: boolean }[]
  marks: SecretMarks
  onChange(marks: SecretMarks): void
}

/**
 * Which of the values are secret, one checkbox a name: every one is, until the person unticks it —
 * a name tells too little (`DATABASE_URL`, `GH_PAT` hold secrets). A secret is stored encrypted and
 * shown as dots from then on; one stored so says it.
 */
function SecretMarksField({ label, names, marks, onChange }: SecretMarksFieldProps) {
  const id = useId()
  if (names.length === 0) return null
  return (
    <fieldset className="field field-wide" aria-describedby={`${id}-hint`}>
      <legend className="field-label">{label}</legend>
      <div className="choice-list">
        {names.map(({ name, stored }) => (
          <div key={name} className="secret-choice">
            <label className="choice">
              <input
                type="checkbox"
                checked={isSecret(marks, name)}
                onChange={(event) => onChange({ ...marks, [name]: event.target.checked })}
              />
              <code>{name}</code>
            </label>
            {stored && isSecret(marks, name) && <span className="tag">stored encrypted</span>}
          </div>
        ))}
      </div>
      <p className="field-hint" id={`${id}-hint`}>
        Every value is stored encrypted and never shown again: it reads {MASKED_VALUE}, and leaving{' '}
        {MASKED_VALUE} as it is keeps the stored value. Untick a value that is not secret (such as{' '}
        <code>LOG_LEVEL=debug</code>) to keep it readable.
      </p>
    </fieldset>
  )
}

/**
 * Adds or edits an MCP server: a command Atelier runs (stdio) or a URL it connects to (Streamable
 * HTTP). A changed command line, environment or working folder is approved again before it runs.
 */
export function McpServerForm({ api, server, onDone, onCancel }: McpServerFormProps) {
  const id = useId()
  const form = useRef<HTMLFormElement>(null)
  const start = server?.definition
  const stdio = start?.transport === 'stdio' ? start : undefined
  const http = start?.transport === 'http' ? start : undefined
  const [transport, setTransport] = useState<Transport>(start?.transport ?? 'stdio')
  const [name, setName] = useState(start?.name ?? '')
  const [command, setCommand] = useState(stdio?.command ?? '')
  const [args, setArgs] = useState<string[]>(stdio?.args ?? [])
  const [env, setEnv] = useState(formatPairs(stdio?.env, 'env'))
  const [cwd, setCwd] = useState(stdio?.cwd ?? '')
  const [sandboxed, setSandboxed] = useState(stdio?.sandboxed === true)
  const [url, setUrl] = useState(http?.url ?? '')
  const [headers, setHeaders] = useState(formatPairs(http?.headers, 'headers'))
  const [marks, setMarks] = useState<SecretMarks>(start?.secret ?? {})
  const oauthStart = http?.oauth
  const [clientId, setClientId] = useState(oauthStart?.clientId ?? '')
  const [clientSecret, setClientSecret] = useState(oauthStart?.clientSecret ?? '')
  const [clientMetadataUrl, setClientMetadataUrl] = useState(oauthStart?.clientMetadataUrl ?? '')
  const [clientPrivateKey, setClientPrivateKey] = useState(oauthStart?.clientPrivateKey ?? '')
  const [signingAlgorithm, setSigningAlgorithm] = useState(oauthStart?.signingAlgorithm ?? '')
  const [scope, setScope] = useState(oauthStart?.scope ?? '')
  const [machine, setMachine] = useState(oauthStart?.grant === 'client_credentials')
  const [errors, setErrors] = useState<Partial<Record<Field, string>>>({})
  const [formError, setFormError] = useState<string>()
  const [saving, setSaving] = useState(false)

  function showErrors(found: Partial<Record<Field, string>>) {
    setErrors(found)
    if (Object.keys(found).length > 0) {
      requestAnimationFrame(() => form.current?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus())
    }
  }

  /** Editing a field takes back what was said about it. */
  function edit<T>(field: Field, set: (value: T) => void): (value: T) => void {
    return (value) => {
      set(value)
      if (errors[field]) setErrors(({ [field]: _, ...rest }) => rest)
    }
  }

  /** The request body, or the errors that stop it. */
  function build(): { server: McpServerInput } | { errors: Partial<Record<Field, string>> } {
    const found: Partial<Record<Field, string>> = {}
    const trimmedName = name.trim()
    if (!NAME_PATTERN.test(trimmedName)) {
      found.name = trimmedName
        ? 'Use up to 32 letters, digits, "_" or "-", without spaces: it prefixes its tools’ names.'
        : 'Give the server a name.'
    }
    if (transport === 'stdio') {
      if (!command.trim()) found.command = 'Enter the program to run, such as npx or a full path.'
      const parsedEnv = parsePairs(env, 'env')
      if ('error' in parsedEnv) found.env = parsedEnv.error
      if ('error' in parsedEnv || Object.keys(found).length > 0) return { errors: found }
      return {
        server: {
          name: trimmedName,
          transport,
          command: command.trim(),
          // An empty row is a slip of the Add button, not an argument anyone means.
          args: args.filter((arg) => arg !== ''),
          env: parsedEnv.pairs,
          ...marksFor(marks, parsedEnv.pairs),
          cwd: cwd.trim() || null,
          // Only when on, as the launch approval records it: a server approved before stays approved.
          ...(sandboxed && { sandboxed }),
        },
      }
    }
    if (!URL_PATTERN.test(url.trim()))
      found.url = 'Enter an address that starts with http:// or https://, without spaces.'
    const parsedHeaders = parsePairs(headers, 'headers')
    if ('error' in parsedHeaders) found.headers = parsedHeaders.error
    const oauth = buildOAuth({
      clientId,
      clientSecret,
      clientMetadataUrl,
      clientPrivateKey,
      signingAlgorithm,
      scope,
      machine,
    })
    if ('errors' in oauth) Object.assign(found, oauth.errors)
    if ('error' in parsedHeaders || 'errors' in oauth || Object.keys(found).length > 0)
      return { errors: found }
    return {
      server: {
        name: trimmedName,
        transport,
        url: url.trim(),
        headers: parsedHeaders.pairs,
        ...marksFor(marks, parsedHeaders.pairs),
        ...oauth,
      },
    }
  }

  async function submit(event: FormEvent) {
    event.preventDefault()
    setFormError(undefined)
    const built = build()
    if ('errors' in built) return showErrors(built.errors)
    showErrors({})
    setSaving(true)
    try {
      onDone(
        server
          ? await api.mcp.update({ name: server.name, server: built.server })
          : await api.mcp.add(built.server),
      )
    } catch (error) {
      const field = isAtelierErrorPayload(error) ? FIELD_OF_CODE[error.code] : undefined
      if (field && isAtelierErrorPayload(error)) {
        showErrors({ [field]: error.message })
      } else {
        const split = splitRequestError(error, FIELDS, (_, message) => message)
        showErrors(split.fields)
        setFormError(split.form)
      }
    } finally {
      setSaving(false)
    }
  }

  const fields = fieldErrors<Field>(id, errors)
  const { described, errorOf } = fields

  return (
    <form ref={form} className="editor" aria-labelledby={`${id}-title`} noValidate onSubmit={submit}>
      <h3 id={`${id}-title`}>{server ? `Edit ${server.name}` : 'Add an MCP server'}</h3>
      <div className="editor-grid">
        <TextField
          fields={fields}
          field="name"
          label="Name"
          value={name}
          onChange={edit('name', setName)}
          required
          maxLength={32}
          spellCheck={false}
          placeholder="filesystem"
          hint={
            <>
              Its tools reach the model as <code>{name.trim() || 'name'}__tool</code>.
            </>
          }
        />
        <div className="field">
          <label className="field-label" htmlFor={`${id}-transport`}>
            Transport
          </label>
          <select
            id={`${id}-transport`}
            value={transport}
            aria-describedby={`${id}-transport-hint`}
            onChange={(event) => setTransport(event.target.value as Transport)}
          >
            <option value="stdio">Local command (stdio)</option>
            <option value="http">Remote URL (Streamable HTTP)</option>
          </select>
          <p className="field-hint" id={`${id}-transport-hint`}>
            {transport === 'stdio'
              ? 'Atelier runs the command on this computer, with your permissions, once you approve it.'
              : 'Atelier connects to the server’s MCP endpoint over HTTP.'}
          </p>
        </div>
        {transport === 'stdio' ? (
          <>
            <TextField
              fields={fields}
              field="command"
              label="Command"
              wide
              className="mono-input"
              value={command}
              onChange={edit('command', setCommand)}
              required
              spellCheck={false}
              placeholder="npx"
              hint="The program alone, found on the PATH or given as a full path; its arguments go below."
            />
            <div className="field field-wide">
              <StringListField
                label="Arguments"
                values={args}
                onChange={edit('args', setArgs)}
                describedBy={described('args', `${id}-args-hint`)}
                invalid={errors.args ? true : undefined}
                placeholder="-y"
              />
              {errorOf('args')}
              <p className="field-hint" id={`${id}-args-hint`}>
                One argument a row, passed exactly as written: no shell, so no quotes needed.
              </p>
            </div>
            <TextField
              fields={fields}
              field="env"
              label="Environment variables"
              wide
              rows={3}
              className="mono-input"
              value={env}
              onChange={edit('env', setEnv)}
              spellCheck={false}
              placeholder="API_TOKEN=abc123"
              hint="One NAME=value a line, added to the server’s environment. Optional."
            />
            <SecretMarksField
              label="Secret variables"
              names={namesIn(env, 'env')}
              marks={marks}
              onChange={setMarks}
            />
            <div className="field-wide">
              <FolderField
                api={api}
                label="Working folder"
                value={cwd}
                onChange={edit('cwd', setCwd)}
                hint="Optional: the folder the command starts in."
              />
              {errorOf('cwd')}
            </div>
            <div className="field-wide">
              <SwitchField
                label="Run in the sandbox"
                checked={sandboxed}
                onChange={setSandboxed}
                hint="The server writes only its working folder and a private temp folder, cannot read your secrets, and reaches the network only if Settings → Sandbox allows it. Off by default: most servers need the network or their own configuration. A change is approved again before it runs."
              />
            </div>
          </>
        ) : (
          <>
            <TextField
              fields={fields}
              field="url"
              label="URL"
              wide
              type="url"
              className="mono-input"
              value={url}
              onChange={edit('url', setUrl)}
              required
              spellCheck={false}
              placeholder="https://example.com/mcp"
              hint={`A user and password in the address, and parameters such as api_key= or token=, are stored encrypted: they read ${MASKED_VALUE}, and leaving them so keeps them.`}
            />
            <TextField
              fields={fields}
              field="headers"
              label="Headers"
              wide
              rows={3}
              className="mono-input"
              value={headers}
              onChange={edit('headers', setHeaders)}
              spellCheck={false}
              placeholder="Authorization: Bearer abc123"
              hint="One Name: value a line, sent with every request. Optional."
            />
            <SecretMarksField
              label="Secret headers"
              names={namesIn(headers, 'headers')}
              marks={marks}
              onChange={setMarks}
            />
            <details className="field-wide oauth-settings" open={oauthStart !== undefined}>
              <summary>Sign-in (OAuth)</summary>
              <p className="field-hint">
                A server that asks for sign-in is signed in to in the browser, registering Atelier with it by
                itself. Fill these in only when the server’s owner gave you a client, or for a machine client.
              </p>
              <div className="editor-grid">
                <TextField
                  fields={fields}
                  field="clientId"
                  label="Client ID"
                  value={clientId}
                  onChange={edit('clientId', setClientId)}
                  spellCheck={false}
                  autoComplete="off"
                  hint="Optional: a client registered with the server beforehand."
                />
                <TextField
                  fields={fields}
                  field="clientSecret"
                  label="Client secret"
                  type="password"
                  value={clientSecret}
                  onChange={edit('clientSecret', setClientSecret)}
                  spellCheck={false}
                  autoComplete="off"
                  hint={`Stored encrypted; it reads ${MASKED_VALUE} from then on.`}
                />
                <TextField
                  fields={fields}
                  field="clientMetadataUrl"
                  label="Client metadata URL"
                  wide
                  type="url"
                  className="mono-input"
                  value={clientMetadataUrl}
                  onChange={edit('clientMetadataUrl', setClientMetadataUrl)}
                  spellCheck={false}
                  placeholder="https://example.com/atelier-client.json"
                  hint="Optional: an https address of a Client ID Metadata Document, used where the server accepts them."
                />
                <TextField
                  fields={fields}
                  field="scope"
                  label="Scope"
                  value={scope}
                  onChange={edit('scope', setScope)}
                  spellCheck={false}
                  hint="Optional: asked for when the server names none itself."
                />
                <label className="choice field">
                  <input
                    type="checkbox"
                    checked={machine}
                    onChange={(event) => setMachine(event.target.checked)}
                  />
                  Machine client (client credentials, no browser)
                </label>
                {machine && (
                  <>
                    <TextField
                      fields={fields}
                      field="clientPrivateKey"
                      label="Private key (PEM)"
                      wide
                      rows={4}
                      className="mono-input"
                      value={clientPrivateKey}
                      onChange={edit('clientPrivateKey', setClientPrivateKey)}
                      spellCheck={false}
                      placeholder="-----BEGIN PRIVATE KEY-----"
                      hint={`Instead of a secret: token requests are signed with this key (private_key_jwt). Stored encrypted; it reads ${MASKED_VALUE} from then on.`}
                    />
                    <TextField
                      fields={fields}
                      field="signingAlgorithm"
                      label="Signing algorithm"
                      value={signingAlgorithm}
                      onChange={edit('signingAlgorithm', setSigningAlgorithm)}
                      spellCheck={false}
                      placeholder="ES256"
                      hint="Optional: taken from the key when left empty."
                    />
                  </>
                )}
              </div>
            </details>
          </>
        )}
      </div>
      <FormFooter
        error={formError}
        saving={saving}
        submitLabel={server ? 'Save server' : 'Add server'}
        onCancel={onCancel}
      />
    </form>
  )
}
