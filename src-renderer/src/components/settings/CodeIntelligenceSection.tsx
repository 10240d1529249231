import { type FormEvent, useCallback, useEffect, useId, useState } from 'react'
import type { AtelierApi } from '../../../../src-shared/api'
import type {
  CodeIntelligenceSettings,
  CustomLanguageServer,
  LanguageServerInfo,
  LanguageServerTest,
} from '../../../../src-shared/code-intelligence'
import type { Preferences } from '../../../../src-shared/contract'
import { errorMessage } from '../../errors'
import { Notice } from './Notice'
import { NumberSetting } from './NumberSetting'
import { SwitchField } from './SwitchField'
import { TextLogDialog } from './TextLogDialog'

interface CodeIntelligenceSectionProps {
  api: AtelierApi
  preferences: Preferences | undefined
  onChange(changes: Partial<Preferences>): void
}

const STATE_LABELS: Record<LanguageServerInfo['state'], string> = {
  running: 'Running',
  available: 'Available',
  missing: 'Missing',
  failed: 'Failed',
}

/** The language servers Atelier knows, as `lsp.status` says; read again whenever one starts, ends or fails. */
function useLanguageServers(api: AtelierApi): {
  servers?: LanguageServerInfo[]
  error?: string
  reload(): void
} {
  const [state, setState] = useState<{ servers?: LanguageServerInfo[]; error?: string }>({})
  const reload = useCallback(() => {
    api.lsp.status().then(
      ({ servers }) => setState({ servers }),
      (failure: unknown) => setState({ error: errorMessage(failure) }),
    )
  }, [api])
  useEffect(() => {
    reload()
    return api.lsp.onChanged(reload)
  }, [api, reload])
  return { ...state, reload }
}

/**
 * Code intelligence: the language servers that check each edit and answer the code tools — which
 * there are (running, available, missing with how to install them), each one's switch, test and
 * log; how long an edit waits for their diagnostics; and the person's own servers.
 */
export function CodeIntelligenceSection({ api, preferences, onChange }: CodeIntelligenceSectionProps) {
  const id = useId()
  const settings = preferences?.codeIntelligence
  const { servers, error, reload } = useLanguageServers(api)
  const [logOf, setLogOf] = useState<LanguageServerInfo>()

  // Preferences change in another window too: the list follows them.
  // biome-ignore lint/correctness/useExhaustiveDependencies: the list is read again when the settings change
  useEffect(reload, [settings, reload])

  const save = (changes: Partial<CodeIntelligenceSettings>) => {
    if (settings) onChange({ codeIntelligence: { ...settings, ...changes } })
  }
  const switchServer = (serverId: string, on: boolean) => {
    if (!settings) return
    const others = settings.disabled.filter((disabled) => disabled !== serverId)
    save({ disabled: on ? others : [...others, serverId] })
  }

  return (
    <div className="settings-section" aria-busy={!servers && !error ? true : undefined}>
      <header className="section-intro">
        <h2>Code intelligence</h2>
        <p className="muted">
          Language servers check each file the agent writes or edits: the result it reads ends with the errors
          the edit brought, so it can fix them before it moves on. They also answer its code tools —
          diagnostics, definition, references, hover and symbols — which are offered only where a server
          serves the folder’s files. Each server runs in the sandbox where it is on: it reads the project and
          writes only its own temp folder.
        </p>
      </header>
      <section className="setting-group" aria-labelledby={`${id}-general`}>
        <h3 id={`${id}-general`}>Checking edits</h3>
        <SwitchField
          label="Use language servers"
          hint="Off: no server starts, edits are not checked, and the code tools are not offered."
          checked={settings?.enabled ?? false}
          locked={!settings}
          onChange={(enabled) => save({ enabled })}
        />
        <SwitchField
          label="Report warnings after edits too"
          hint="Off: only the errors an edit brought are reported."
          checked={settings?.warnings ?? false}
          locked={!settings}
          onChange={(warnings) => save({ warnings })}
        />
        <NumberSetting
          label="Wait for diagnostics (seconds)"
          saved={settings && Math.max(1, Math.round(settings.waitSeconds))}
          min={1}
          max={30}
          hint="Past this, the result says they are pending and they come with the next result. 1 to 30; saved when you leave the field."
          onSave={(waitSeconds) => save({ waitSeconds })}
        />
        <NumberSetting
          label="End a server unused for (minutes)"
          saved={settings?.idleMinutes}
          min={1}
          max={1440}
          hint="A server also ends when no chat is bound to its folder any more, and when Atelier quits. 1 to 1440."
          onSave={(idleMinutes) => save({ idleMinutes })}
        />
      </section>
      <section className="setting-group" aria-labelledby={`${id}-servers`}>
        <h3 id={`${id}-servers`}>Servers</h3>
        {error && (
          <Notice tone="danger" role="alert" title="The servers could not be listed">
            {error}
          </Notice>
        )}
        <ul className="language-servers">
          {servers?.map((server) => (
            <LanguageServerItem
              key={server.id}
              api={api}
              server={server}
              enabled={settings ? settings.enabled && !settings.disabled.includes(server.id) : false}
              locked={!settings}
              onSwitch={(on) => switchServer(server.id, on)}
              onShowLog={() => setLogOf(server)}
              onRemove={
                server.origin === 'custom' && settings
                  ? () => save({ servers: settings.servers.filter((custom) => custom.id !== server.id) })
                  : undefined
              }
            />
          ))}
        </ul>
      </section>
      {settings && (
        <AddServerForm
          api={api}
          taken={servers?.map((server) => server.id) ?? []}
          onAdd={(server) => save({ servers: [...settings.servers, server] })}
        />
      )}
      {logOf && (
        <TextLogDialog
          title={`${logOf.name}: log`}
          description="When it started and ended, and what it wrote on its error stream."
          load={async () => {
            const { servers: now } = await api.lsp.status()
            const current = now.find((server) => server.id === logOf.id)
            return { text: current?.log.join('\n') || 'Nothing yet: it has not started.' }
          }}
          onClose={() => setLogOf(undefined)}
        />
      )}
    </div>
  )
}

interface LanguageServerItemProps {
  api: AtelierApi
  server: LanguageServerInfo
  enabled: boolean
  locked: boolean
  onSwitch(on: boolean): void
  onShowLog(): void
  onRemove?: () => void
}

function LanguageServerItem({
  api,
  server,
  enabled,
  locked,
  onSwitch,
  onShowLog,
  onRemove,
}: LanguageServerItemProps) {
  const [test, setTest] = useState<LanguageServerTest | 'testing'>()
  const runTest = () => {
    setTest('testing')
    api.lsp
      .test({ id: server.id })
      .then(setTest, (failure: unknown) => setTest({ ok: false, error: errorMessage(failure) }))
  }
  return (
    <li className="language-server" aria-label={server.name}>
      <SwitchField
        label={server.name}
        hint={`${server.languages.map((language) => `.${language}`).join(' ')}${server.folders.length > 0 ? ` — running in ${server.folders.join(', ')}` : ''}`}
        checked={enabled}
        locked={locked}
        onChange={onSwitch}
      />
      <span className={`tag language-server-state state-${server.state}`}>{STATE_LABELS[server.state]}</span>
      {server.state === 'missing' && server.installHint && (
        <Notice tone="warning" title="Not installed">
          {server.installHint}
        </Notice>
      )}
      {server.error && (
        <Notice tone="danger" title="It failed">
          {server.error}
        </Notice>
      )}
      <div className="item-actions">
        <button type="button" onClick={runTest} disabled={test === 'testing'}>
          {test === 'testing' ? 'Testing…' : 'Test'}
        </button>
        <button type="button" onClick={onShowLog}>
          Log
        </button>
        {onRemove && (
          <button type="button" onClick={onRemove}>
            Remove
          </button>
        )}
      </div>
      {test && test !== 'testing' && <TestOutcome test={test} />}
    </li>
  )
}

function TestOutcome({ test }: { test: LanguageServerTest }) {
  if (!test.ok) {
    return (
      <Notice tone="danger" role="alert" title="The test failed">
        {test.error}
      </Notice>
    )
  }
  return (
    <Notice
      tone="success"
      role="status"
      title={`Started in ${Math.round(test.durationMs)} ms${test.server ? ` (${test.server})` : ''}`}
    >
      It can: {test.capabilities.join(', ')}
    </Notice>
  )
}

/** The endings a person typed ("zig, .zon") as the setting keeps them (`zig`, `zon`). */
function parseEndings(text: string): string[] {
  return text
    .split(/[\s,]+/)
    .map((ending) => ending.replace(/^\./, '').trim())
    .filter(Boolean)
}

/** The person's own server: its name, the endings it serves, its command, and options to start it with. */
function AddServerForm({
  api,
  taken,
  onAdd,
}: {
  api: AtelierApi
  taken: string[]
  onAdd(server: CustomLanguageServer): void
}) {
  const id = useId()
  const [name, setName] = useState('')
  const [endings, setEndings] = useState('')
  const [command, setCommand] = useState('')
  const [options, setOptions] = useState('')
  const [problem, setProblem] = useState<string>()
  const [test, setTest] = useState<LanguageServerTest | 'testing'>()

  function build(): CustomLanguageServer | undefined {
    const argv = command.trim().split(/\s+/).filter(Boolean)
    const languages = parseEndings(endings)
    if (!/^[A-Za-z0-9._-]+$/.test(name))
      return fail('Give it a name of letters, digits, dots, dashes or underscores.')
    if (taken.includes(name)) return fail(`A server is already called “${name}”.`)
    if (languages.length === 0) return fail('Give the file endings it serves, such as zig or lua.')
    if (argv.length === 0)
      return fail('Give the command that starts it, such as zls or lua-language-server --stdio.')
    let initializationOptions: unknown
    if (options.trim()) {
      try {
        initializationOptions = JSON.parse(options)
      } catch {
        return fail('The initialization options must be JSON.')
      }
    }
    setProblem(undefined)
    return {
      id: name,
      languages,
      command: argv,
      ...(initializationOptions !== undefined && { initializationOptions }),
    }
  }
  function fail(message: string): undefined {
    setProblem(message)
    return undefined
  }

  function submit(event: FormEvent) {
    event.preventDefault()
    const server = build()
    if (!server) return
    onAdd(server)
    setName('')
    setEndings('')
    setCommand('')
    setOptions('')
    setTest(undefined)
  }

  function runTest() {
    const server = build()
    if (!server) return
    setTest('testing')
    api.lsp
      .test({ server })
      .then(setTest, (failure: unknown) => setTest({ ok: false, error: errorMessage(failure) }))
  }

  return (
    <form className="setting-group" aria-labelledby={`${id}-add`} onSubmit={submit}>
      <h3 id={`${id}-add`}>Add a server</h3>
      <p className="muted">
        Any program that speaks the Language Server Protocol on its standard input and output.
      </p>
      <div className="field">
        <label className="field-label" htmlFor={`${id}-name`}>
          Name
        </label>
        <input
          id={`${id}-name`}
          value={name}
          onChange={(event) => setName(event.target.value)}
          placeholder="zls"
        />
      </div>
      <div className="field">
        <label className="field-label" htmlFor={`${id}-endings`}>
          File endings
        </label>
        <input
          id={`${id}-endings`}
          value={endings}
          onChange={(event) => setEndings(event.target.value)}
          placeholder="zig, zon"
        />
      </div>
      <div className="field field-wide">
        <label className="field-label" htmlFor={`${id}-command`}>
          Command
        </label>
        <input
          id={`${id}-command`}
          value={command}
          onChange={(event) => setCommand(event.target.value)}
          placeholder="zls"
          spellCheck={false}
        />
      </div>
      <div className="field field-wide">
        <label className="field-label" htmlFor={`${id}-options`}>
          Initialization options (JSON, optional)
        </label>
        <textarea
          id={`${id}-options`}
          value={options}
          rows={3}
          onChange={(event) => setOptions(event.target.value)}
          spellCheck={false}
        />
      </div>
      {problem && (
        <Notice tone="danger" role="alert">
          {problem}
        </Notice>
      )}
      <div className="item-actions">
        <button type="button" onClick={runTest} disabled={test === 'testing'}>
          {test === 'testing' ? 'Testing…' : 'Test'}
        </button>
        <button type="submit">Add server</button>
      </div>
      {test && test !== 'testing' && <TestOutcome test={test} />}
    </form>
  )
}
