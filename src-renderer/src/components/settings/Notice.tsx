import type { ReactNode } from 'react'

interface NoticeProps {
  tone: 'info' | 'warning' | 'danger' | 'success'
  children: ReactNode
  /** `alert` for a failure that just happened; `status` for news; none for standing explanations. */
  role?: 'alert' | 'status'
  id?: string
  title?: string
}

const ICONS: Record<NoticeProps['tone'], string> = { info: 'i', warning: '!', danger: '!', success: '✓' }

/** A calm, bordered message: explanation, warning or outcome. */
export function Notice({ tone, children, role, id, title }: NoticeProps) {
  return (
    <div className={`notice notice-${tone}`} role={role} id={id}>
      <span className="notice-icon" aria-hidden="true">
        {ICONS[tone]}
      </span>
      <div className="notice-body">
        {title && <strong className="notice-title">{title}</strong>}
        {children}
      </div>
    </div>
  )
}

/** A settings section's messages: the list that failed to load, the last action that failed, news. */
export function SectionNotices({
  loadError,
  error,
  news,
}: {
  loadError?: string
  error?: string
  news?: string
}) {
  return (
    <>
      {loadError && (
        <Notice tone="danger" role="alert">
          {loadError}
        </Notice>
      )}
      {error && (
        <Notice tone="danger" role="alert">
          {error}
        </Notice>
      )}
      {news && (
        <Notice tone="success" role="status">
          {news}
        </Notice>
      )}
    </>
  )
}
