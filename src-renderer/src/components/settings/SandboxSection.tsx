import { useId } from 'react'
import type { AtelierApi } from '../../../../src-shared/api'
import type { Preferences } from '../../../../src-shared/contract'
import type { SandboxSettings } from '../../../../src-shared/sandbox'
import { MarkdownText } from '../chat/MarkdownText'
import { SANDBOX_KIND_LABELS } from '../sandbox-words'
import { useSandboxStatus } from '../useSandboxStatus'
import { Notice } from './Notice'
import { PathListGroup } from './PathListGroup'
import { SwitchField } from './SwitchField'

interface SandboxSectionProps {
  api: AtelierApi
  preferences: Preferences | undefined
  onChange(changes: Partial<Preferences>): void
}

type SwitchKey = Exclude<keyof SandboxSettings, 'writablePaths'>

const SWITCHES: { key: SwitchKey; label: string; hint: string }[] = [
  {
    key: 'enabled',
    label: 'Run commands in the sandbox',
    hint: 'Every command the agent runs (bash, zsh, PowerShell) is confined by the operating system. Off: commands run with your own permissions, and only the approvals stand in their way.',
  },
  {
    key: 'network',
    label: 'Allow the network',
    hint: 'Sandboxed commands may reach other machines. Off: a command that needs the network asks to leave the sandbox, and you decide each time.',
  },
  {
    key: 'runUnasked',
    label: 'Sandboxed commands run without asking',
    hint: 'In Ask and Accept edits, a command no deny rule matches runs in the sandbox unasked. A command that asks to leave the sandbox always asks.',
  },
  {
    key: 'escapeInFullAuto',
    label: 'In full-auto, let commands leave the sandbox unasked',
    hint: 'Off: even in Full auto, a command asking for the network or to run outside the sandbox waits for you.',
  },
  {
    key: 'customTools',
    label: 'Run custom tools’ programs in the sandbox',
    hint: 'The programs a custom tool starts (api.exec) run sandboxed, in the call’s folder.',
  },
]

/**
 * The sandbox: what this computer has (found once, by a probe run), the settings that decide how
 * the agent's commands are confined, and the folders they may write besides the bound one.
 */
export function SandboxSection({ api, preferences, onChange }: SandboxSectionProps) {
  const id = useId()
  const { info, error } = useSandboxStatus(api)
  const settings = preferences?.sandbox

  const save = (changes: Partial<SandboxSettings>) => {
    if (settings) onChange({ sandbox: { ...settings, ...changes } })
  }

  return (
    <div className="settings-section" aria-busy={!info && !error ? true : undefined}>
      <header className="section-intro">
        <h2>Sandbox</h2>
        <p className="muted">
          The operating system confines every command the agent runs. A sandboxed command writes only in the
          chat’s folder and a private temp folder of its own; inside the folder, protected paths such as{' '}
          <code>.git</code> and <code>.npmrc</code> are read-only. Your secrets — <code>~/.ssh</code>, cloud
          and registry credentials, browser profiles, and Atelier’s own data folder — are hidden from it, and
          the network is off.
        </p>
        <p className="muted sandbox-limits">
          What the sandbox does not cover: the file tools (read, write, edit) run inside Atelier itself, so
          what they touch is decided by the approvals and by keeping them in the bound folder, not by the
          sandbox.
        </p>
      </header>
      {error && (
        <Notice tone="danger" role="alert" title="What this computer has could not be found">
          {error}
        </Notice>
      )}
      <section className="setting-group" aria-labelledby={`${id}-machine`}>
        <h3 id={`${id}-machine`}>This computer</h3>
        {!info && !error && <p className="muted">Looking for a sandbox…</p>}
        {info && (
          <>
            <dl className="facts">
              <div>
                <dt>Sandbox</dt>
                <dd>{SANDBOX_KIND_LABELS[info.kind]}</dd>
              </div>
              <div>
                <dt>Status</dt>
                <dd className={`mcp-status mcp-status-${info.available ? 'running' : 'failed'}`}>
                  <span className="mcp-status-dot" aria-hidden="true" />
                  <span className="mcp-status-label">{info.available ? 'Available' : 'Not available'}</span>
                </dd>
              </div>
              {info.probeMs !== undefined && (
                <div>
                  <dt>Probe</dt>
                  <dd>took {Math.round(info.probeMs)} ms at start</dd>
                </div>
              )}
              {info.executable && (
                <div>
                  <dt>Program</dt>
                  <dd>
                    <code>{info.executable}</code>
                  </dd>
                </div>
              )}
            </dl>
            {!info.available && (
              <Notice tone="warning" title="Commands are not sandboxed here">
                <p>{info.reason}</p>
                {info.fix && (
                  <div className="sandbox-fix">
                    <strong>To fix it</strong>
                    <MarkdownText text={info.fix} />
                  </div>
                )}
                <p>Until then commands run with your permissions, and the approvals decide as before.</p>
              </Notice>
            )}
          </>
        )}
      </section>
      <section className="setting-group" aria-labelledby={`${id}-commands`}>
        <h3 id={`${id}-commands`}>Commands</h3>
        {SWITCHES.map(({ key, label, hint }) => (
          <SwitchField
            key={key}
            label={label}
            hint={hint}
            checked={settings?.[key] ?? false}
            locked={!settings}
            onChange={(checked) => save({ [key]: checked })}
          />
        ))}
      </section>
      <PathListGroup
        saved={settings?.writablePaths}
        onSave={(writablePaths) => save({ writablePaths })}
        title="More writable folders"
        hint={
          <>
            Folders sandboxed commands may write besides the chat’s folder and their temp folder — a build
            cache, say. Give absolute paths; one that does not exist is left out. Your secrets stay hidden
            even inside a folder listed here.
          </>
        }
        label="Writable folders"
        placeholder="/var/cache/my-build"
        saveLabel="Save writable folders"
      />
    </div>
  )
}
