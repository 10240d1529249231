import { createContext, useContext } from 'react'

/** The sections of Settings, as its tabs name them by id. */
export type SettingsSection =
  | 'appearance'
  | 'tools'
  | 'permissions'
  | 'sandbox'
  | 'checkpoints'
  | 'code'
  | 'mcp'
  | 'services'
  | 'custom'
  | 'hooks'
  | 'providers'
  | 'usage'
  | 'agents'

/** Where to open Settings: a section, and in Providers, the provider to open for editing. */
export interface SettingsTarget {
  section: SettingsSection
  provider?: string
}

/** How messages name the sections after "Settings → ", as the tabs label them. */
export const SECTION_BY_LABEL: Record<string, SettingsSection> = {
  Appearance: 'appearance',
  Tools: 'tools',
  Permissions: 'permissions',
  Sandbox: 'sandbox',
  Checkpoints: 'checkpoints',
  'Code intelligence': 'code',
  MCP: 'mcp',
  'Tool services': 'services',
  Hooks: 'hooks',
  'Custom tools': 'custom',
  Providers: 'providers',
  Usage: 'usage',
  'Agent profiles': 'agents',
}

/**
 * Opens Settings at a section, from anywhere below the app (an error's action, a link in a
 * message). Null outside the app's provider: callers then show plain text instead of a link.
 */
export const OpenSettingsContext = createContext<((target: SettingsTarget) => void) | null>(null)

export function useOpenSettings(): ((target: SettingsTarget) => void) | null {
  return useContext(OpenSettingsContext)
}
