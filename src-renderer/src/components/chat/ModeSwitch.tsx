import { useId } from 'react'
import type { ChatMode } from '../../../../src-shared/contract'

interface ModeSwitchProps {
  mode: ChatMode
  hasFolder: boolean
  onChange(mode: ChatMode): void
}

/** Agent mode on or off, with what each means one hover or focus away. */
export function ModeSwitch({ mode, hasFolder, onChange }: ModeSwitchProps) {
  const tipId = useId()
  const on = mode === 'agent'
  return (
    <div className="mode-switch">
      <button
        type="button"
        role="switch"
        aria-checked={on}
        aria-label="Agent mode"
        aria-describedby={tipId}
        className="switch"
        onClick={() => onChange(on ? 'chat' : 'agent')}
      >
        <span className="switch-track" aria-hidden="true">
          <span className="switch-thumb" />
        </span>
        {/* "Agent" where the header is not wide (see daily-chat.css); the name stays "Agent mode". */}
        <span className="switch-label">
          Agent<span className="switch-label-rest"> mode</span>
        </span>
      </button>
      <span role="tooltip" id={tipId} className="tooltip">
        <strong>On — agent mode:</strong> tools work in the bound folder; relative paths start there and file
        tools stay inside it.
        {!hasFolder && ' Choose a folder for it to work in.'}
        <br />
        <strong>Off — chat mode:</strong> the folder is not given to the tools; the agent talks and uses tools
        without a project.
      </span>
    </div>
  )
}
