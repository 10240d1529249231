import '../../tool-activity.css'
import { type ReactNode, useContext, useId } from 'react'
import type { ToolCallState } from '../../../../src-shared/tool-calls'
import { activityLine } from './activity-line'
import { ChatIcon } from './ChatIcon'
import { BUSY, type CallStatus, callStatus, FAILED, WAITING } from './call-status'
import { callKey, type ShellChunk, type ToolCallView } from './conversation'
import { RevealedCallContext } from './revealed-call-context'
import { ToolCallCard } from './ToolCallCard'
import { useDisclosure } from './useDisclosure'

interface ToolActivityProps {
  turnId: string
  /** Calls the model made side by side, in the order it made them. */
  calls: ToolCallView[]
  /** The conversation's call states and what running commands wrote, by `callKey`. */
  states: Record<string, ToolCallState>
  output: Record<string, ShellChunk[]>
  /** Whether the turn that made the calls is still running. */
  active: boolean
}

/** How a group's line sums up its calls' states, in the order it names them. */
const TALLY: [string, (status: CallStatus) => boolean][] = [
  ['waiting for you', (status) => WAITING.has(status)],
  ['failed', (status) => FAILED.has(status)],
  ['running', (status) => BUSY.has(status)],
  ['queued', (status) => status === 'queued'],
  ['denied', (status) => status === 'denied'],
  ['cancelled', (status) => status === 'cancelled'],
  ['not run', (status) => status === 'not-run'],
  ['done', (status) => status === 'done'],
]

/** "all done", "2 running, 3 done", "1 waiting for you, 4 done". */
function tallyText(statuses: CallStatus[]): string {
  const counts = TALLY.map(([words, test]) => [words, statuses.filter(test).length] as const).filter(
    ([, count]) => count > 0,
  )
  const only = counts.length === 1 ? counts[0] : undefined
  if (only && statuses.length > 1) return `all ${only[0]}`
  return counts.map(([words, count]) => `${count} ${words}`).join(', ')
}

/**
 * A response's calls: one alone shows as its own line; several made together gather under one line
 * ("5 calls · all done") that opens to theirs. The group opens by itself when one of its calls
 * failed or waits for the person.
 */
export function ToolActivity({ turnId, calls, states, output, active }: ToolActivityProps) {
  const cards = calls.map((call) => (
    <ToolCallCard
      key={call.id}
      call={call}
      state={states[callKey(turnId, call.id)]}
      output={output[callKey(turnId, call.id)]}
      active={active}
      disclosureKey={callKey(turnId, call.id)}
    />
  ))
  const [first] = calls
  if (calls.length === 1 || !first) return cards
  return (
    <ToolCallGroup turnId={turnId} calls={calls} states={states} output={output} active={active}>
      {cards}
    </ToolCallGroup>
  )
}

function ToolCallGroup({
  turnId,
  calls,
  states,
  output,
  active,
  children,
}: ToolActivityProps & { children: ReactNode }) {
  const bodyId = useId()
  const statuses = calls.map((call) => callStatus(call, states[callKey(turnId, call.id)], active))
  const revealed = useContext(RevealedCallContext)
  const { open, toggle } = useDisclosure(`${callKey(turnId, calls[0]?.id ?? '')} group`, {
    attention:
      statuses.some((status) => FAILED.has(status)) ||
      calls.some((call) => callKey(turnId, call.id) === revealed),
    pinned: calls.some((call, index) => {
      const status = statuses[index]
      return (status && WAITING.has(status)) || states[callKey(turnId, call.id)]?.question !== undefined
    }),
  })
  const busy = statuses.some((status) => BUSY.has(status))
  const preview = calls
    .map((call) => {
      const line = activityLine(
        call.name,
        call.arguments,
        states[callKey(turnId, call.id)],
        output[callKey(turnId, call.id)],
      )
      return line.subject ? `${line.verb} ${line.subject}` : line.verb
    })
    .join(', ')
  return (
    // biome-ignore lint/a11y/useSemanticElements: the calls of one response are a group of articles, not form controls
    <div
      role="group"
      aria-label={`${calls.length} tool calls`}
      className={`tool-group${open ? ' tool-group--open' : ''}`}
    >
      <button
        type="button"
        className="tool-line tool-group-line"
        aria-expanded={open}
        aria-controls={bodyId}
        onClick={toggle}
      >
        <span className="tool-line-chevron" aria-hidden="true">
          <ChatIcon name="chevron-down" size={13} />
        </span>
        <span className="tool-card-icon">
          <ChatIcon name="layers" size={15} />
        </span>
        <span className="tool-card-name">{calls.length} calls</span>
        <span className="tool-line-outcome">
          <span aria-hidden="true"> · </span>
          {busy && <span className="spinner" aria-hidden="true" />}
          {tallyText(statuses)}
        </span>
        <span className="tool-group-preview" title={preview}>
          <span className="visually-hidden">: </span>
          {preview}
        </span>
      </button>
      <div id={bodyId} className="tool-group-calls" hidden={!open}>
        {children}
      </div>
    </div>
  )
}
