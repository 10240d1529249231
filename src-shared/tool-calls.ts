/**
 * A tool call as a thing with a state: what the scheduler tells every view of a call, whole, each
 * time it changes — validated, queued, waiting for the person, running, and how it ended — and what
 * the database keeps of it. One `tool_call` event carries it; a view never infers a call's state
 * from other events.
 */
import { type Static, Type } from '@sinclair/typebox'
import { HookRun } from './hooks'
import { CallDecision, Question } from './questions'
import {
  CountedReport,
  ImageReport,
  PartialReport,
  ToolCallDescription,
  ToolDisplay,
  ToolErrorType,
} from './tools'

/**
 * `validating`: resolved and checked against its schema. `scheduled`: waiting for its turn (calls
 * that edit or execute run one at a time, in call order). `awaiting_approval`: the policy asks the
 * person before it runs. `executing`: running. `awaiting_input`: running, and the tool asks the
 * person something (a change to apply, a server's form). Then one of the three ends.
 */
export const TOOL_CALL_STATUSES = [
  'validating',
  'scheduled',
  'awaiting_approval',
  'executing',
  'awaiting_input',
  'succeeded',
  'failed',
  'cancelled',
] as const
export const ToolCallStatus = Type.Union(TOOL_CALL_STATUSES.map((status) => Type.Literal(status)))
export type ToolCallStatus = (typeof TOOL_CALL_STATUSES)[number]

export function isFinished(status: ToolCallStatus): boolean {
  return status === 'succeeded' || status === 'failed' || status === 'cancelled'
}

/** What a call returned: the text the model reads, and what only the UI and hooks see. */
export const ToolCallResult = Type.Object({
  content: Type.String(),
  isError: Type.Boolean(),
  /** How an error result failed (timeout, denied, validation_failed, …). */
  errorType: Type.Optional(ToolErrorType),
  /** The content was cut: by the result cap, or by the tool itself (a file window, a capped stream). */
  truncated: Type.Boolean(),
  /** How long the call ran, waits for the person left out. */
  durationMs: Type.Number(),
  /** How the UI shows it (a diff, a command's output, images); never sent to the model. */
  display: Type.Optional(ToolDisplay),
  /** For hooks and the UI (an MCP server's structured content); never sent to the model. */
  data: Type.Optional(Type.Unknown()),
})
export type ToolCallResult = Static<typeof ToolCallResult>

/**
 * What a running call has reported that a later report replaces: its latest count, its latest
 * partial result, each image's outcome. (Output a command streams is not state: it travels as
 * `tool_output` chunks.)
 */
export const CallProgress = Type.Object({
  counted: Type.Optional(CountedReport),
  partial: Type.Optional(PartialReport),
  images: Type.Optional(Type.Array(ImageReport)),
})
export type CallProgress = Static<typeof CallProgress>

export const ToolCallState = Type.Object({
  /** The id the model gave the call. */
  id: Type.String(),
  chatId: Type.String(),
  turnId: Type.String(),
  /** The tool's name as the model called it. */
  name: Type.String(),
  /** The tool's title as Settings shows it ("Read files"), when it is a known tool. */
  title: Type.Optional(Type.String()),
  /** Its place among the calls of its response, from 0. */
  index: Type.Number(),
  status: ToolCallStatus,
  /** How a failed or cancelled call ended. */
  errorType: Type.Optional(ToolErrorType),
  /** What it does, in words and paths, once known (before anyone decides on it). */
  description: Type.Optional(ToolCallDescription),
  /** The question waiting for the person, while `awaiting_approval` or `awaiting_input`. */
  question: Type.Optional(Question),
  /** What was decided for it, in order: its approval, and any question it asked while it ran. */
  decisions: Type.Array(CallDecision),
  /** The person's hooks that ran on it (PreToolUse, PostToolUse), in the order they ended. */
  hooks: Type.Optional(Type.Array(HookRun)),
  progress: Type.Optional(CallProgress),
  /** Once it has ended. */
  result: Type.Optional(ToolCallResult),
  /** Epoch milliseconds: made, began to run, ended. */
  createdAt: Type.Number(),
  startedAt: Type.Optional(Type.Number()),
  endedAt: Type.Optional(Type.Number()),
  /** Time spent waiting for the person, which is not the call's duration. */
  waitedMs: Type.Number(),
})
export type ToolCallState = Static<typeof ToolCallState>
