import { type FormEvent, useEffect, useId, useRef, useState } from 'react'
import type { AtelierApi } from '../../../../src-shared/api'
import { isAtelierErrorPayload } from '../../../../src-shared/errors'
import type { ToolSettingsDescriptor } from '../../../../src-shared/tools'
import { errorMessage } from '../../errors'
import { Notice } from './Notice'
import { ParameterField } from './ParameterField'
import { type Drafts, draftsOf, parameterErrorText, parametersOf, sameDrafts } from './tool-values'

interface ToolParameterFormProps {
  api: AtelierApi
  tool: ToolSettingsDescriptor
  onSaved(tool: ToolSettingsDescriptor): void
}

type Status = { kind: 'idle' } | { kind: 'saving' } | { kind: 'saved'; text: string }

/**
 * The settings of one tool, generated from its parameter descriptors. Save sends them all to the
 * main process, whose validation is the only one: a refused parameter is shown next to its field and
 * nothing is saved.
 */
export function ToolParameterForm({ api, tool, onSaved }: ToolParameterFormProps) {
  const id = useId()
  const form = useRef<HTMLFormElement>(null)
  const [drafts, setDrafts] = useState<Drafts>(() => draftsOf(tool))
  const [fieldErrors, setFieldErrors] = useState<Record<string, string>>({})
  const [formError, setFormError] = useState<string>()
  const [status, setStatus] = useState<Status>({ kind: 'idle' })
  const [focusField, setFocusField] = useState<string>()
  const saved = draftsOf(tool)
  const dirty = !sameDrafts(drafts, saved)
  const defaults = draftsOf({ ...tool, parameters: tool.defaultParameters })
  const atDefaults = sameDrafts(drafts, defaults)

  // A refused field takes focus, so the keyboard lands where the fix is.
  useEffect(() => {
    if (!focusField) return
    const field = form.current?.querySelector<HTMLElement>(`[data-parameter="${focusField}"]`)
    field?.querySelector<HTMLElement>('input, select, button[role="switch"]')?.focus()
    setFocusField(undefined)
  }, [focusField])

  async function save(parameters: Record<string, unknown>, done: string) {
    setStatus({ kind: 'saving' })
    setFormError(undefined)
    setFieldErrors({})
    try {
      const updated = await api.tools.update({ name: tool.name, parameters })
      setDrafts(draftsOf(updated))
      setStatus({ kind: 'saved', text: done })
      onSaved(updated)
    } catch (error) {
      setStatus({ kind: 'idle' })
      const data = isAtelierErrorPayload(error)
        ? (error.data as Record<string, unknown> | undefined)
        : undefined
      const parameter = typeof data?.parameter === 'string' ? data.parameter : undefined
      const descriptor = tool.parameterDescriptors.find((d) => d.name === parameter)
      if (isAtelierErrorPayload(error) && error.code === 'invalid_parameters' && parameter && descriptor) {
        setFieldErrors({ [parameter]: parameterErrorText(descriptor, data?.rule, error.message) })
        setFocusField(parameter)
      } else {
        setFormError(errorMessage(error))
      }
    }
  }

  function submit(event: FormEvent) {
    event.preventDefault()
    void save(parametersOf(tool, drafts), 'Saved. The next turn uses these settings.')
  }

  const saving = status.kind === 'saving'
  return (
    <form
      ref={form}
      className="parameter-form"
      noValidate
      onSubmit={submit}
      aria-label={`${tool.title} parameters`}
    >
      <div className="parameter-fields">
        {tool.parameterDescriptors.map((descriptor) => (
          <div key={descriptor.name} data-parameter={descriptor.name}>
            <ParameterField
              id={`${id}-${descriptor.name}`}
              descriptor={descriptor}
              value={drafts[descriptor.name] ?? ''}
              error={fieldErrors[descriptor.name]}
              onChange={(value) => {
                setDrafts((current) => ({ ...current, [descriptor.name]: value }))
                setStatus({ kind: 'idle' })
                setFieldErrors(({ [descriptor.name]: _cleared, ...rest }) => rest)
              }}
            />
          </div>
        ))}
      </div>
      {formError && (
        <Notice tone="danger" role="alert">
          {formError}
        </Notice>
      )}
      <div className="form-actions">
        <button type="submit" className="primary" disabled={saving} aria-busy={saving || undefined}>
          Save
        </button>
        <button
          type="button"
          disabled={saving}
          onClick={() => void save(tool.defaultParameters, 'Defaults restored.')}
          title={atDefaults ? 'These are already the defaults' : undefined}
        >
          Reset to defaults
        </button>
        <span className="form-status" role="status">
          {status.kind === 'saving'
            ? 'Saving…'
            : status.kind === 'saved'
              ? status.text
              : dirty
                ? 'Unsaved changes'
                : ''}
        </span>
      </div>
    </form>
  )
}
