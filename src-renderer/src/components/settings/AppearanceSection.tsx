import { useId } from 'react'
import type { AppInfo, Preferences, Theme } from '../../../../src-shared/contract'
import { NotificationsGroup } from './NotificationsGroup'
import { NumberSetting } from './NumberSetting'

const THEMES: { value: Theme; label: string }[] = [
  { value: 'system', label: 'System' },
  { value: 'dark', label: 'Dark' },
  { value: 'light', label: 'Light' },
]

interface AppearanceSectionProps {
  info: AppInfo | undefined
  preferences: Preferences | undefined
  onChange(changes: Partial<Preferences>): void
}

/**
 * Theme, how long a turn may run and when its context is compacted, which turn events notify, and
 * what this installation is.
 */
export function AppearanceSection({ info, preferences, onChange }: AppearanceSectionProps) {
  const id = useId()
  return (
    <div className="settings-section">
      <header className="section-intro">
        <h2>Appearance</h2>
        <p className="muted">How Atelier looks, and how long the agent may work on its own.</p>
      </header>
      <fieldset className="setting-group">
        <legend>Theme</legend>
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
      <section className="setting-group" aria-labelledby={`${id}-turns`}>
        <h3 id={`${id}-turns`}>Turns</h3>
        <NumberSetting
          label="Max model responses per turn"
          saved={preferences?.maxIterations}
          min={1}
          max={500}
          hint="Each tool round-trip takes one response. When a turn reaches this many, it stops and says so. 1 to 500; saved when you leave the field."
          onSave={(maxIterations) => onChange({ maxIterations })}
        />
        <NumberSetting
          label="Compact at (% of the context window)"
          saved={preferences?.compactionThresholdPercent}
          min={10}
          max={95}
          hint="When the next request would fill more than this share of the model’s context window, older tool outputs are elided and, if that is not enough, earlier messages summarized first. 10 to 95; saved when you leave the field."
          onSave={(compactionThresholdPercent) => onChange({ compactionThresholdPercent })}
        />
      </section>
      <NotificationsGroup preferences={preferences} onChange={onChange} />
      {info && (
        <section className="setting-group about" aria-labelledby={`${id}-about`}>
          <h3 id={`${id}-about`}>About</h3>
          <p>
            {info.name} {info.version}
          </p>
          <p className="muted">
            Data folder: <code>{info.dataDir}</code>
          </p>
        </section>
      )}
    </div>
  )
}
