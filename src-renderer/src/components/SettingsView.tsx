import type { AtelierApi } from '../../../src-shared/api'
import type { AppInfo, Preferences, Theme } from '../../../src-shared/contract'

const THEMES: { value: Theme; label: string }[] = [
  { value: 'system', label: 'System' },
  { value: 'dark', label: 'Dark' },
  { value: 'light', label: 'Light' },
]

interface SettingsViewProps {
  api: AtelierApi
  info: AppInfo | undefined
  preferences: Preferences | undefined
  onChange(changes: Partial<Preferences>): void
  onClose(): void
}

export function SettingsView({ info, preferences, onChange, onClose }: SettingsViewProps) {
  return (
    <section className="settings" aria-labelledby="settings-title">
      <header className="settings-header">
        <h1 id="settings-title">Settings</h1>
        <button type="button" onClick={onClose}>
          Close settings
        </button>
      </header>
      <fieldset className="setting-group">
        <legend>Appearance</legend>
        <div role="radiogroup" aria-label="Theme" className="segmented">
          {THEMES.map(({ value, label }) => (
            <label key={value}>
              <input
                type="radio"
                name="theme"
                value={value}
                checked={preferences?.theme === value}
                onChange={() => onChange({ theme: value })}
              />
              {label}
            </label>
          ))}
        </div>
        <p className="muted">System follows your operating system’s light or dark setting.</p>
      </fieldset>
      {info && (
        <section className="setting-group" aria-labelledby="about-title">
          <h2 id="about-title">About</h2>
          <p>
            {info.name} {info.version}
          </p>
          <p className="muted">
            Data folder: <code>{info.dataDir}</code>
          </p>
        </section>
      )}
    </section>
  )
}
