import { type ChangeEvent, useEffect, useId, useRef, useState } from 'react'
import type { AtelierApi } from '../../../../src-shared/api'

interface ModelFieldProps {
  api: AtelierApi
  /** The provider whose models to offer; its list is fetched the first time the field is used. */
  providerId: string | undefined
  value: string | null
  /** What null means: the provider's default model. */
  placeholder: string
  onCommit(model: string | null): void
}

/** A model name: pick from the provider's list or type any; empty means the provider's default. */
export function ModelField({ api, providerId, value, placeholder, onCommit }: ModelFieldProps) {
  const [text, setText] = useState(value ?? '')
  const [models, setModels] = useState<string[]>([])
  const fetchedFor = useRef<string | undefined>(undefined)
  const listId = useId()
  const inputId = useId()

  useEffect(() => setText(value ?? ''), [value])
  // biome-ignore lint/correctness/useExhaustiveDependencies: another provider has other models
  useEffect(() => {
    setModels([])
    fetchedFor.current = undefined
  }, [providerId])

  const load = () => {
    if (!providerId || fetchedFor.current === providerId) return
    fetchedFor.current = providerId
    api.providers.models({ id: providerId }).then(
      ({ models: names }) => setModels(names),
      () => setModels([]),
    )
  }

  const commit = (next: string) => {
    const model = next.trim() || null
    if (model !== value) onCommit(model)
  }

  const onChange = (event: ChangeEvent<HTMLInputElement>) => {
    setText(event.target.value)
    // A pick from the list arrives as one replacement: take it at once.
    const inputType = (event.nativeEvent as InputEvent).inputType
    if (inputType === undefined || inputType === 'insertReplacementText') commit(event.target.value)
  }

  return (
    <div className="model-field">
      <label htmlFor={inputId} className="visually-hidden">
        Model
      </label>
      <input
        id={inputId}
        className="toolbar-chip model-field-input"
        title="Model: pick from the provider's list or type any; empty is the provider's default"
        list={listId}
        value={text}
        placeholder={placeholder}
        spellCheck={false}
        autoComplete="off"
        onFocus={load}
        onChange={onChange}
        onBlur={() => commit(text)}
        onKeyDown={(event) => {
          if (event.key === 'Enter') {
            event.preventDefault()
            commit(text)
          } else if (event.key === 'Escape') {
            setText(value ?? '')
          }
        }}
      />
      <datalist id={listId}>
        {models.map((model) => (
          <option key={model} value={model} />
        ))}
      </datalist>
    </div>
  )
}
