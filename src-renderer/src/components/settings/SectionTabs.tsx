import { type KeyboardEvent, useRef } from 'react'

export interface SectionTab<Id extends string> {
  id: Id
  label: string
  description: string
}

interface SectionTabsProps<Id extends string> {
  tabs: SectionTab<Id>[]
  selected: Id
  onSelect(id: Id): void
  /** Ids of the tab and its panel, so each panel can be labelled by its tab. */
  tabId(id: Id): string
  panelId(id: Id): string
}

/**
 * The settings sections as a vertical tab list: one tab in the Tab order, arrows (and Home/End)
 * move between tabs and show each section as they go.
 */
export function SectionTabs<Id extends string>({
  tabs,
  selected,
  onSelect,
  tabId,
  panelId,
}: SectionTabsProps<Id>) {
  const list = useRef<HTMLDivElement>(null)

  function onKeyDown(event: KeyboardEvent) {
    const index = tabs.findIndex((tab) => tab.id === selected)
    const last = tabs.length - 1
    const next =
      event.key === 'ArrowDown' || event.key === 'ArrowRight'
        ? index === last
          ? 0
          : index + 1
        : event.key === 'ArrowUp' || event.key === 'ArrowLeft'
          ? index === 0
            ? last
            : index - 1
          : event.key === 'Home'
            ? 0
            : event.key === 'End'
              ? last
              : undefined
    const tab = next === undefined ? undefined : tabs[next]
    if (!tab) return
    event.preventDefault()
    onSelect(tab.id)
    list.current?.querySelector<HTMLElement>(`#${CSS.escape(tabId(tab.id))}`)?.focus()
  }

  return (
    <div
      ref={list}
      role="tablist"
      aria-label="Settings sections"
      aria-orientation="vertical"
      className="section-tabs"
      onKeyDown={onKeyDown}
    >
      {tabs.map((tab) => {
        const isSelected = tab.id === selected
        return (
          <button
            key={tab.id}
            id={tabId(tab.id)}
            type="button"
            role="tab"
            aria-selected={isSelected}
            aria-controls={panelId(tab.id)}
            tabIndex={isSelected ? 0 : -1}
            className="section-tab"
            onClick={() => onSelect(tab.id)}
          >
            <span className="section-tab-label">{tab.label}</span>
            <span className="section-tab-description" aria-hidden="true">
              {tab.description}
            </span>
          </button>
        )
      })}
    </div>
  )
}
