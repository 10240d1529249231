import { useEffect, useId, useState } from 'react'
import type { AtelierApi } from '../../../../src-shared/api'
import type { UsageReport, UsageTotal } from '../../../../src-shared/usage'
import { errorMessage } from '../../errors'
import { costText, fullTokens } from '../chat/tokens'

/** The periods a person can look back over, in days (today included). */
const PERIODS = [1, 7, 30, 90] as const

/** A usage's cost where known; an em dash where none of its responses had a price. */
function costCell(usage: UsageTotal): string {
  return costText(usage) ?? '—'
}

function UsageRow({ label, usage }: { label: string; usage: UsageTotal }) {
  return (
    <tr>
      <th scope="row">{label}</th>
      <td>{fullTokens(usage.inputTokens)}</td>
      <td>{fullTokens(usage.cachedTokens ?? 0)}</td>
      <td>{fullTokens(usage.outputTokens)}</td>
      <td>{costCell(usage)}</td>
    </tr>
  )
}

function UsageTable({
  caption,
  first,
  rows,
}: {
  caption: string
  first: string
  rows: [string, string, UsageTotal][]
}) {
  return (
    <table className="usage-table">
      <caption className="visually-hidden">{caption}</caption>
      <thead>
        <tr>
          <th scope="col">{first}</th>
          <th scope="col">Input</th>
          <th scope="col">Cached</th>
          <th scope="col">Output</th>
          <th scope="col">Cost</th>
        </tr>
      </thead>
      <tbody>
        {rows.map(([key, label, usage]) => (
          <UsageRow key={key} label={label} usage={usage} />
        ))}
      </tbody>
    </table>
  )
}

/**
 * Settings → Usage: tokens and cost per day over a period, its costliest chats (subagents in their
 * parent) and its total. A cost is shown only for responses whose model had a price when they were
 * answered (Settings → Providers); the others count their tokens only.
 */
export function UsageSection({ api }: { api: AtelierApi }) {
  const id = useId()
  const [days, setDays] = useState<(typeof PERIODS)[number]>(30)
  const [report, setReport] = useState<UsageReport>()
  const [error, setError] = useState<string>()

  useEffect(() => {
    let current = true
    api.usage.report({ days }).then(
      (next) => {
        if (!current) return
        setReport(next)
        setError(undefined)
      },
      (failure: unknown) => {
        if (current) setError(errorMessage(failure))
      },
    )
    return () => {
      current = false
    }
  }, [api, days])

  return (
    <div className="settings-section">
      <header className="section-intro">
        <h2>Usage</h2>
        <p className="muted">
          Tokens as the providers counted them, and what they cost at the price of each model when it answered
          — the defaults for well-known models at their vendor’s own API, or your own in Settings → Providers.
          A model without a price shows its tokens only: its cost is never guessed. Subagents count in the
          chat that ran them.
        </p>
      </header>
      <label className="usage-period">
        Period{' '}
        <select value={days} onChange={(event) => setDays(Number(event.target.value) as typeof days)}>
          {PERIODS.map((period) => (
            <option key={period} value={period}>
              {period === 1 ? 'Today' : `Last ${period} days`}
            </option>
          ))}
        </select>
      </label>
      {error && <p role="alert">{error}</p>}
      {report && (
        <>
          <section className="setting-group" aria-labelledby={`${id}-total`}>
            <h3 id={`${id}-total`}>In all</h3>
            <p className="usage-total">
              {costText(report.total) ?? 'No cost known'} ·{' '}
              {fullTokens(report.total.inputTokens + report.total.outputTokens)} tokens
              {report.total.unpricedResponses
                ? ` (${report.total.unpricedResponses} responses of models without a price)`
                : ''}
            </p>
          </section>
          <section className="setting-group" aria-labelledby={`${id}-days`}>
            <h3 id={`${id}-days`}>By day</h3>
            {report.days.length === 0 ? (
              <p className="muted">No responses in this period.</p>
            ) : (
              <UsageTable
                caption="Usage by day"
                first="Day"
                rows={report.days.map((day) => [day.day, day.day, day])}
              />
            )}
          </section>
          {report.chats.length > 0 && (
            <section className="setting-group" aria-labelledby={`${id}-chats`}>
              <h3 id={`${id}-chats`}>Costliest chats</h3>
              <UsageTable
                caption="Usage by chat"
                first="Chat"
                rows={report.chats.map((chat) => [chat.chatId, chat.title, chat])}
              />
            </section>
          )}
        </>
      )}
    </div>
  )
}
