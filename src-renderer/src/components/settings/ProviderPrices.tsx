import { type FormEvent, useEffect, useId, useState } from 'react'
import type { AtelierApi } from '../../../../src-shared/api'
import type { ModelPrice, ModelPriceEntry } from '../../../../src-shared/prices'
import type { ProviderInfo } from '../../../../src-shared/providers'
import { errorMessage } from '../../errors'

const FIELDS = [
  ['input', 'Input'],
  ['cachedInput', 'Cached input'],
  ['output', 'Output'],
] as const satisfies readonly (readonly [keyof ModelPrice, string])[]

type Draft = { model: string } & Record<keyof ModelPrice, string>

const EMPTY: Draft = { model: '', input: '', cachedInput: '', output: '' }

/** The draft as a price, or the words saying what is wrong with it. */
function parsed(draft: Draft): { model: string; price: ModelPrice } | string {
  const model = draft.model.trim()
  if (!model) return 'Name the model.'
  const price = {} as ModelPrice
  for (const [key, label] of FIELDS) {
    const value = Number(draft[key])
    if (draft[key].trim() === '' || !Number.isFinite(value) || value < 0) {
      return `${label}: dollars per million tokens, 0 or more.`
    }
    price[key] = value
  }
  return { model, price }
}

/**
 * A provider's prices by model, in US dollars per million tokens: the defaults that apply at its
 * endpoint and the person's own, which win. A response is costed at the price when it is answered,
 * so an edit applies from the next response on.
 */
export function ProviderPrices({ api, provider }: { api: AtelierApi; provider: ProviderInfo }) {
  const id = useId()
  const [entries, setEntries] = useState<ModelPriceEntry[]>()
  const [draft, setDraft] = useState<Draft>(EMPTY)
  const [error, setError] = useState<string>()

  // Which defaults apply depends on where the provider points: asked again when that changes.
  // biome-ignore lint/correctness/useExhaustiveDependencies: the kind and address decide the list
  useEffect(() => {
    api.prices
      .list({ providerId: provider.id })
      .then(setEntries, (failure: unknown) => setError(errorMessage(failure)))
  }, [api, provider.id, provider.kind, provider.baseUrl])

  async function change(run: () => Promise<ModelPriceEntry[]>) {
    try {
      setEntries(await run())
      setError(undefined)
      return true
    } catch (failure) {
      setError(errorMessage(failure))
      return false
    }
  }

  async function save(event: FormEvent) {
    event.preventDefault()
    const result = parsed(draft)
    if (typeof result === 'string') return setError(result)
    if (await change(() => api.prices.set({ providerId: provider.id, ...result }))) setDraft(EMPTY)
  }

  const edit = ({ model, price }: ModelPriceEntry) =>
    setDraft({
      model,
      input: String(price.input),
      cachedInput: String(price.cachedInput),
      output: String(price.output),
    })

  return (
    <details className="provider-prices">
      <summary>Prices{entries ? ` (${entries.length})` : ''}</summary>
      <p className="muted">
        US dollars per million tokens. Defaults apply to well-known models at the vendor’s own API and may be
        out of date: edit them here. A model without a price shows its tokens only.
      </p>
      {entries && entries.length > 0 && (
        <table className="usage-table">
          <caption className="visually-hidden">Prices of {provider.name}</caption>
          <thead>
            <tr>
              <th scope="col">Model</th>
              {FIELDS.map(([key, label]) => (
                <th key={key} scope="col">
                  {label}
                </th>
              ))}
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {entries.map((entry) => (
              <tr key={entry.model}>
                <th scope="row">
                  <code>{entry.model}</code>{' '}
                  {entry.source === 'default' && <span className="muted">default</span>}
                </th>
                {FIELDS.map(([key]) => (
                  <td key={key}>${entry.price[key]}</td>
                ))}
                <td>
                  <button type="button" className="small" onClick={() => edit(entry)}>
                    Edit<span className="visually-hidden"> the price of {entry.model}</span>
                  </button>
                  {entry.source === 'custom' && (
                    <button
                      type="button"
                      className="small"
                      onClick={() =>
                        void change(() => api.prices.reset({ providerId: provider.id, model: entry.model }))
                      }
                    >
                      Reset<span className="visually-hidden"> the price of {entry.model}</span>
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <form
        className="provider-price-form"
        onSubmit={(event) => void save(event)}
        aria-label={`Set a price of ${provider.name}`}
      >
        <label>
          Model
          <input
            value={draft.model}
            placeholder={provider.defaultModel ?? 'model name'}
            onChange={(event) => setDraft({ ...draft, model: event.target.value })}
          />
        </label>
        {FIELDS.map(([key, label]) => (
          <label key={key}>
            {label} ($/M)
            <input
              inputMode="decimal"
              value={draft[key]}
              onChange={(event) => setDraft({ ...draft, [key]: event.target.value })}
            />
          </label>
        ))}
        <button type="submit" className="small">
          Save price
        </button>
      </form>
      {error && (
        <p role="alert" id={`${id}-error`}>
          {error}
        </p>
      )}
    </details>
  )
}
