import { type FormEvent, useEffect, useId, useRef, useState } from 'react'
import type { McpPromptArgument } from '../../../../src-shared/mcp-catalog'
import { errorMessage } from '../../errors'
import { useApi } from './api-context'
import { Modal } from './Modal'
import { type PromptChoice, promptCommand } from './PromptMenu'

/** A prompt's arguments, asked for before its text fills the composer. */
export function PromptArgumentsDialog({
  choice,
  onFilled,
  onClose,
}: {
  choice: PromptChoice
  onFilled(text: string): void
  onClose(): void
}) {
  const api = useApi()
  const formId = useId()
  const [values, setValues] = useState<Record<string, string>>({})
  const [error, setError] = useState<string>()
  const [busy, setBusy] = useState(false)
  const { server, prompt } = choice
  const form = useRef<HTMLFormElement>(null)
  // The first argument, not the dialog's Close button, is where the person starts.
  useEffect(() => form.current?.querySelector('input')?.focus(), [])

  const onSubmit = async (event: FormEvent) => {
    event.preventDefault()
    setBusy(true)
    setError(undefined)
    try {
      const { text } = await api.mcp.getPrompt({ server, name: prompt.name, arguments: values })
      onFilled(text)
    } catch (failure) {
      setError(errorMessage(failure))
      setBusy(false)
    }
  }

  return (
    <Modal
      title={promptCommand(choice)}
      description={prompt.description ?? prompt.title}
      onClose={onClose}
      className="prompt-arguments-dialog"
      footer={
        <>
          <button type="button" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" form={formId} className="primary" disabled={busy}>
            Insert prompt
          </button>
        </>
      }
    >
      <form
        ref={form}
        id={formId}
        className="prompt-arguments"
        aria-label="Prompt arguments"
        onSubmit={onSubmit}
      >
        {prompt.arguments.map((argument) => (
          <ArgumentField
            key={argument.name}
            argument={argument}
            value={values[argument.name] ?? ''}
            onChange={(value) => setValues((current) => ({ ...current, [argument.name]: value }))}
          />
        ))}
        {error && (
          <p className="inline-error" role="alert">
            {error}
          </p>
        )}
      </form>
    </Modal>
  )
}

function ArgumentField({
  argument,
  value,
  onChange,
}: {
  argument: McpPromptArgument
  value: string
  onChange(value: string): void
}) {
  const inputId = useId()
  const descriptionId = useId()
  return (
    <div className="prompt-argument">
      <label htmlFor={inputId}>
        {argument.name}
        <span className={argument.required ? 'prompt-argument-required' : 'prompt-argument-optional'}>
          {argument.required ? ' (required)' : ' (optional)'}
        </span>
      </label>
      <input
        id={inputId}
        className="input"
        type="text"
        required={argument.required}
        aria-describedby={argument.description ? descriptionId : undefined}
        value={value}
        onChange={(event) => onChange(event.target.value)}
      />
      {argument.description && (
        <span id={descriptionId} className="prompt-argument-description">
          {argument.description}
        </span>
      )}
    </div>
  )
}
