import { type FormEvent, useId, useRef, useState } from 'react'
import {
  type ElicitationContent,
  type ElicitationField,
  type ElicitationRequest,
  elicitationFields,
  elicitationProblems,
} from '../../../../src-shared/elicitation'
import { isAtelierErrorPayload } from '../../../../src-shared/errors'
import type { CallDecision } from '../../../../src-shared/questions'
import { decisionLabel } from '../approval-words'
import { useReply } from './ApprovalCard'
import { ChatIcon } from './ChatIcon'
import { ServerQuestionActions, ServerQuestionForm } from './ServerQuestionForm'
import { usageText } from './tokens'

/**
 * How an MCP server's question during a call was answered, as one line in the call's card: what the
 * server was told (an accepted form in its own words; the tokens a sampling request used), kept
 * after a reload.
 */
export function AnsweredQuestion({ decision }: { decision: CallDecision }) {
  const tokens = decision.usage && `tokens: ${usageText(decision.usage)}`
  const summary = decision.answer ?? [decision.server, decision.summary, tokens].filter(Boolean).join(' · ')
  return (
    // biome-ignore lint/a11y/useSemanticElements: a fieldset groups form controls; this is one answered question
    <div
      role="group"
      aria-label={`Question from ${decision.server ?? 'the server'}`}
      className={`approval approval--settled elicitation--${decision.outcome}`}
    >
      <ChatIcon name="info" size={14} />
      <span className="approval-outcome">{decisionLabel(decision)}</span>
      <span className="approval-outcome-summary" title={summary}>
        {summary}
      </span>
    </div>
  )
}

/** What each control holds while the person edits: text for text and numbers, a flag, the chosen values. */
type FormValue = string | boolean | string[]

function initialValue(field: ElicitationField): FormValue {
  switch (field.kind) {
    case 'boolean':
      return field.default ?? false
    case 'multi':
      return field.default ?? []
    case 'number':
      return field.default === undefined ? '' : String(field.default)
    default:
      return field.default ?? ''
  }
}

/** The controls' values as content: empty text and numbers left out, numbers parsed. */
function contentOf(
  fields: ElicitationField[],
  values: Record<string, FormValue>,
): { content: ElicitationContent; problems: Record<string, string> } {
  const content: ElicitationContent = {}
  const problems: Record<string, string> = {}
  for (const field of fields) {
    const value = values[field.name]
    if (value === undefined || value === '') continue
    if (field.kind === 'number' && typeof value === 'string') {
      const number = Number(value.trim())
      if (value.trim() === '' || !Number.isFinite(number))
        problems[field.name] = `${field.label} must be a number.`
      else content[field.name] = number
    } else {
      content[field.name] = value
    }
  }
  return { content, problems }
}

/**
 * An MCP server's question during a call (elicitation): its message and a form made from the schema
 * it sent, with the server's defaults filled in, and Accept / Decline / Cancel.
 */
export function ElicitationQuestion({ question: request }: { question: ElicitationRequest }) {
  const id = useId()
  const form = useRef<HTMLFormElement>(null)
  const fields = elicitationFields(request.requestedSchema)
  const [values, setValues] = useState<Record<string, FormValue>>(() =>
    Object.fromEntries(fields.map((field) => [field.name, initialValue(field)])),
  )
  const [problems, setProblems] = useState<Record<string, string>>({})
  const { reply, disabled, error } = useReply({
    question: request,
    group: form,
    onRefused: (failure) => {
      const fromMain =
        isAtelierErrorPayload(failure) && failure.code === 'invalid_answer'
          ? (failure.data as { problems?: Record<string, string> } | undefined)?.problems
          : undefined
      if (fromMain) setProblems(fromMain)
    },
  })

  const accept = (event: FormEvent) => {
    event.preventDefault()
    const { content, problems: unreadable } = contentOf(fields, values)
    const found = { ...elicitationProblems(request.requestedSchema, content), ...unreadable }
    setProblems(found)
    const first = fields.find((field) => found[field.name])
    if (first) {
      form.current?.querySelector<HTMLElement>(`[data-field="${CSS.escape(first.name)}"]`)?.focus()
      return
    }
    void reply({ action: 'accept', content })
  }

  const set = (name: string, value: FormValue) => {
    setValues((current) => ({ ...current, [name]: value }))
    setProblems(({ [name]: _fixed, ...rest }) => rest)
  }

  return (
    <ServerQuestionForm
      form={form}
      question={request}
      label={`Question from ${request.server}`}
      describedBy={`${id}-message`}
      asks="asks"
      focus="input, select, button"
      onSubmit={accept}
      onEscape={() => void reply({ action: 'cancel' })}
    >
      <div className="approval-body">
        <p className="elicitation-message" id={`${id}-message`}>
          {request.message}
        </p>
        {fields.map((field) => (
          <FieldControl
            key={field.name}
            id={`${id}-${field.name}`}
            field={field}
            value={values[field.name] ?? initialValue(field)}
            problem={problems[field.name]}
            disabled={disabled}
            onChange={(value) => set(field.name, value)}
          />
        ))}
        {fields.some((field) => field.required) && (
          <p className="elicitation-help">
            <span aria-hidden="true">*</span> required
          </p>
        )}
      </div>
      <ServerQuestionActions
        submit="Accept"
        error={error}
        disabled={disabled}
        onDecline={() => void reply({ action: 'decline' })}
      >
        <button type="button" disabled={disabled} onClick={() => void reply({ action: 'cancel' })}>
          Cancel
        </button>
      </ServerQuestionActions>
      <p className="approval-keys">
        <kbd>Enter</kbd> accepts · <kbd>Esc</kbd> cancels · what you send goes to {request.server}
      </p>
    </ServerQuestionForm>
  )
}

interface FieldControlProps {
  id: string
  field: ElicitationField
  value: FormValue
  problem: string | undefined
  disabled: boolean
  onChange(value: FormValue): void
}

/** One field: its label (the field's title, the control's name), the control, its help and its problem. */
function FieldControl({ id, field, value, problem, disabled, onChange }: FieldControlProps) {
  const describedBy = [field.description && `${id}-help`, problem && `${id}-problem`]
    .filter(Boolean)
    .join(' ')
  const common = {
    id,
    'data-field': field.name,
    disabled,
    'aria-invalid': problem ? true : undefined,
    'aria-describedby': describedBy || undefined,
    'aria-required': field.required || undefined,
  }
  const label = (
    <>
      {field.label}
      {field.required && <span aria-hidden="true"> *</span>}
    </>
  )
  const help = (
    <>
      {field.description && (
        <span className="elicitation-help" id={`${id}-help`}>
          {field.description}
        </span>
      )}
      {problem && (
        <span className="elicitation-problem" id={`${id}-problem`}>
          {problem}
        </span>
      )}
    </>
  )

  if (field.kind === 'boolean') {
    return (
      <div className="elicitation-field elicitation-field--check">
        <label>
          <input
            type="checkbox"
            {...common}
            checked={value === true}
            onChange={(event) => onChange(event.target.checked)}
          />{' '}
          {label}
        </label>
        {help}
      </div>
    )
  }
  if (field.kind === 'multi') {
    const chosen = Array.isArray(value) ? value : []
    return (
      <fieldset
        className="elicitation-field elicitation-choices"
        aria-describedby={describedBy || undefined}
        aria-invalid={problem ? true : undefined}
      >
        <legend>{label}</legend>
        {field.options.map((option, index) => (
          <label key={option.value} className="approval-choice">
            <input
              type="checkbox"
              {...(index === 0 && { 'data-field': field.name })}
              disabled={disabled}
              checked={chosen.includes(option.value)}
              onChange={(event) =>
                onChange(
                  event.target.checked
                    ? [...chosen, option.value]
                    : chosen.filter((item) => item !== option.value),
                )
              }
            />{' '}
            {option.label}
          </label>
        ))}
        {help}
      </fieldset>
    )
  }
  return (
    <div className="elicitation-field">
      <label htmlFor={id}>{label}</label>
      {field.kind === 'choice' ? (
        <select {...common} value={String(value)} onChange={(event) => onChange(event.target.value)}>
          {(!field.required || field.default === undefined) && <option value="">—</option>}
          {field.options.map((option) => (
            <option key={option.value} value={option.value}>
              {option.label}
            </option>
          ))}
        </select>
      ) : field.kind === 'number' ? (
        <input
          type="number"
          {...common}
          step={field.integer ? 1 : 'any'}
          min={field.minimum}
          max={field.maximum}
          value={String(value)}
          onChange={(event) => onChange(event.target.value)}
        />
      ) : (
        <input
          type={inputType(field.format)}
          {...common}
          minLength={field.minLength}
          maxLength={field.maxLength}
          value={String(value)}
          onChange={(event) => onChange(event.target.value)}
        />
      )}
      {help}
    </div>
  )
}

function inputType(format: string | undefined): string {
  switch (format) {
    case 'email':
      return 'email'
    case 'uri':
      return 'url'
    case 'date':
      return 'date'
    default:
      return 'text'
  }
}
