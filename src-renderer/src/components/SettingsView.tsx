import { type ReactNode, useEffect, useId, useState } from 'react'
import type { AtelierApi } from '../../../src-shared/api'
import type { AppInfo, Preferences } from '../../../src-shared/contract'
import type { SettingsSection, SettingsTarget } from '../settings-navigation'
import { AgentProfilesSection } from './settings/AgentProfilesSection'
import { AppearanceSection } from './settings/AppearanceSection'
import { CheckpointsSection } from './settings/CheckpointsSection'
import { CodeIntelligenceSection } from './settings/CodeIntelligenceSection'
import { CustomToolsSection } from './settings/CustomToolsSection'
import { HooksSection } from './settings/HooksSection'
import { McpSection } from './settings/McpSection'
import { PermissionsSection } from './settings/PermissionsSection'
import { ProvidersSection } from './settings/ProvidersSection'
import { SandboxSection } from './settings/SandboxSection'
import { type SectionTab, SectionTabs } from './settings/SectionTabs'
import { ServicesSection } from './settings/ServicesSection'
import { ToolsSection } from './settings/ToolsSection'
import { UsageSection } from './settings/UsageSection'
import '../settings.css'

type SectionId = SettingsSection

const SECTIONS: SectionTab<SectionId>[] = [
  { id: 'appearance', label: 'Appearance', description: 'Theme, turns, notifications' },
  { id: 'tools', label: 'Tools', description: 'Switches, parameters, playground' },
  { id: 'permissions', label: 'Permissions', description: 'Rules, protected paths' },
  { id: 'sandbox', label: 'Sandbox', description: 'What commands may reach' },
  { id: 'checkpoints', label: 'Checkpoints', description: 'Undo, rewind, what is kept' },
  { id: 'code', label: 'Code intelligence', description: 'Language servers, diagnostics' },
  { id: 'mcp', label: 'MCP', description: 'Servers that bring tools' },
  { id: 'services', label: 'Tool services', description: 'Broker, services, descriptors' },
  { id: 'custom', label: 'Custom tools', description: 'Your modules, trust, logs' },
  { id: 'hooks', label: 'Hooks', description: 'Your commands at lifecycle points' },
  { id: 'providers', label: 'Providers', description: 'Models, API keys, prices' },
  { id: 'usage', label: 'Usage', description: 'Tokens and cost by day and chat' },
  { id: 'agents', label: 'Agent profiles', description: 'Prompts, tools, modes, AGENTS.md' },
]

interface SettingsViewProps {
  api: AtelierApi
  info: AppInfo | undefined
  preferences: Preferences | undefined
  /** The current chat's bound folder: Custom tools lists its tool folders too. */
  folder: string | null
  /** Where to open, when something pointed here (an error's action, a link in a message). */
  target?: (SettingsTarget & { at: number }) | undefined
  onChange(changes: Partial<Preferences>): void
  onClose(): void
}

/** Reopening settings returns to the section last shown in this window. */
let lastSection: SectionId = 'appearance'

export function SettingsView({
  api,
  info,
  preferences,
  folder,
  target,
  onChange,
  onClose,
}: SettingsViewProps) {
  const id = useId()
  if (target) lastSection = target.section
  const [section, setSection] = useState<SectionId>(lastSection)
  // A section is mounted when first shown and then kept, so unsaved edits survive switching sections.
  const [visited, setVisited] = useState<ReadonlySet<SectionId>>(() => new Set([lastSection]))
  const tabId = (section: SectionId) => `${id}-tab-${section}`
  const panelId = (section: SectionId) => `${id}-panel-${section}`

  function select(next: SectionId) {
    lastSection = next
    setSection(next)
    setVisited((current) => (current.has(next) ? current : new Set([...current, next])))
  }

  // Pointed here again while open: show that section, the keyboard on its tab.
  // biome-ignore lint/correctness/useExhaustiveDependencies: each pointing (its `at`) goes there once
  useEffect(() => {
    if (!target) return
    select(target.section)
    requestAnimationFrame(() => {
      // A provider to edit takes the focus itself (its form's first field); else the tab does.
      if (!target.provider) document.getElementById(tabId(target.section))?.focus()
    })
  }, [target?.at])

  /** From a card that points at Settings → Tools: the keyboard lands on that tab, as if chosen there. */
  function showTools() {
    select('tools')
    requestAnimationFrame(() => document.getElementById(tabId('tools'))?.focus())
  }

  const content: Record<SectionId, () => ReactNode> = {
    appearance: () => <AppearanceSection info={info} preferences={preferences} onChange={onChange} />,
    tools: () => <ToolsSection api={api} />,
    permissions: () => <PermissionsSection api={api} preferences={preferences} onChange={onChange} />,
    sandbox: () => <SandboxSection api={api} preferences={preferences} onChange={onChange} />,
    checkpoints: () => <CheckpointsSection preferences={preferences} onChange={onChange} />,
    code: () => <CodeIntelligenceSection api={api} preferences={preferences} onChange={onChange} />,
    mcp: () => <McpSection api={api} />,
    services: () => <ServicesSection api={api} onShowTools={showTools} />,
    custom: () => (
      <CustomToolsSection api={api} folder={folder} preferences={preferences} onChange={onChange} />
    ),
    hooks: () => <HooksSection api={api} folder={folder} />,
    providers: () => (
      <ProvidersSection
        api={api}
        editing={target?.section === 'providers' ? target.provider : undefined}
        editingAt={target?.at}
      />
    ),
    usage: () => <UsageSection api={api} />,
    agents: () => <AgentProfilesSection api={api} preferences={preferences} onChange={onChange} />,
  }

  return (
    <section className="settings" aria-labelledby="settings-title">
      <header className="settings-header">
        <h1 id="settings-title">Settings</h1>
        <button type="button" onClick={onClose}>
          Close settings
        </button>
      </header>
      <div className="settings-body">
        <SectionTabs tabs={SECTIONS} selected={section} onSelect={select} tabId={tabId} panelId={panelId} />
        {SECTIONS.map(({ id: sectionId }) => (
          <div
            key={sectionId}
            id={panelId(sectionId)}
            role="tabpanel"
            aria-labelledby={tabId(sectionId)}
            className="settings-panel"
            hidden={sectionId !== section}
          >
            {visited.has(sectionId) && content[sectionId]()}
          </div>
        ))}
      </div>
    </section>
  )
}
