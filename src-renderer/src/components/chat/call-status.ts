/** A call's state in a person's words, as its line, its card and its group say it. */
import type { ToolCallState } from '../../../../src-shared/tool-calls'
import type { ToolErrorType } from '../../../../src-shared/tools'
import type { ToolCallView } from './conversation'

/** What the card says of the call: its state, in a person's words. */
export type CallStatus =
  | 'writing'
  | 'preparing'
  | 'checking'
  | 'queued'
  | 'waiting'
  | 'running'
  | 'asking'
  | 'done'
  | 'error'
  | 'denied'
  | 'cancelled'
  | 'timeout'
  | 'not-offered'
  | 'interrupted'
  | 'not-run'

export const STATUS_LABEL: Record<CallStatus, string> = {
  writing: 'Preparing…',
  preparing: 'Preparing…',
  checking: 'Checking…',
  queued: 'Queued',
  waiting: 'Waiting for approval',
  running: 'Running…',
  asking: 'Waiting for you',
  done: 'Done',
  error: 'Error',
  denied: 'Denied',
  cancelled: 'Cancelled',
  timeout: 'Timed out',
  'not-offered': 'Not offered',
  interrupted: 'Interrupted',
  'not-run': 'Not run',
}

/** Failures a person reads differently from a plain error; every other type is an Error. */
const ERROR_STATUSES: Partial<Record<ToolErrorType, CallStatus>> = {
  timeout: 'timeout',
  not_offered: 'not-offered',
  denied: 'denied',
  interrupted: 'interrupted',
}

export const BUSY: ReadonlySet<CallStatus> = new Set(['writing', 'preparing', 'checking', 'running'])

/** Calls that went wrong: their card opens by itself, so what went wrong is read without a click. */
export const FAILED: ReadonlySet<CallStatus> = new Set(['error', 'timeout', 'not-offered', 'interrupted'])

/** Calls that wait for the person: their question is never folded away. */
export const WAITING: ReadonlySet<CallStatus> = new Set(['waiting', 'asking'])

/** The call's status, from its own state alone (before it has one: from the model's stream). */
export function callStatus(
  call: ToolCallView,
  state: ToolCallState | undefined,
  active: boolean,
): CallStatus {
  if (!state) return !active ? 'not-run' : call.complete ? 'preparing' : 'writing'
  switch (state.status) {
    case 'validating':
      return 'checking'
    case 'scheduled':
      return 'queued'
    case 'awaiting_approval':
      return 'waiting'
    case 'executing':
      return 'running'
    case 'awaiting_input':
      return 'asking'
    case 'succeeded':
      return 'done'
    case 'cancelled':
      return 'cancelled'
    case 'failed':
      return (state.errorType && ERROR_STATUSES[state.errorType]) ?? 'error'
  }
}
