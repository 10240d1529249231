import { useEffect, useId, useRef, useState } from 'react'
import type { AtelierApi } from '../../../../src-shared/api'
import { DEFAULT_PROTECTED_PATHS, type PermissionRule, RULE_SCOPES } from '../../../../src-shared/approvals'
import type { Chat, Preferences } from '../../../../src-shared/contract'
import { errorMessage } from '../../errors'
import { Notice } from './Notice'
import { PathListGroup } from './PathListGroup'
import { PermissionRuleCard } from './PermissionRuleCard'
import { PermissionRuleForm } from './PermissionRuleForm'
import { upsertById } from './upsert'

interface PermissionsSectionProps {
  api: AtelierApi
  preferences: Preferences | undefined
  onChange(changes: Partial<Preferences>): void
}

/** Everywhere first, then project folders, then single chats; within each, by rule. */
function sortRules(rules: PermissionRule[]): PermissionRule[] {
  return [...rules].sort(
    (a, b) =>
      RULE_SCOPES.indexOf(b.scope) - RULE_SCOPES.indexOf(a.scope) ||
      (a.folder ?? '').localeCompare(b.folder ?? '') ||
      a.rule.localeCompare(b.rule),
  )
}

/**
 * What runs without asking: every saved rule (from approval cards, this panel or the command
 * line), where it holds, when it was last used, and the protected paths that always ask.
 */
export function PermissionsSection({ api, preferences, onChange }: PermissionsSectionProps) {
  const id = useId()
  const [rules, setRules] = useState<PermissionRule[]>()
  const [chats, setChats] = useState<Chat[]>([])
  const [adding, setAdding] = useState(false)
  const [error, setError] = useState<string>()
  const [status, setStatus] = useState<string>()
  const listHeading = useRef<HTMLHeadingElement>(null)

  useEffect(() => {
    let live = true
    api.permissions.list().then(
      (list) => live && setRules(list),
      (failure) => live && setError(errorMessage(failure)),
    )
    api.chats.list().then(
      (list) => live && setChats(list),
      () => undefined,
    )
    const offRules = api.permissions.onChanged(({ rules: list }) => live && setRules(list))
    const offChats = api.chats.onChanged(({ chats: list }) => live && setChats(list))
    return () => {
      live = false
      offRules()
      offChats()
    }
  }, [api])

  async function revoke(rule: PermissionRule) {
    try {
      await api.permissions.remove({ id: rule.id })
      setRules((current) => current?.filter((r) => r.id !== rule.id))
      setError(undefined)
      setStatus(`Revoked ${rule.rule}.`)
      listHeading.current?.focus()
    } catch (failure) {
      setError(errorMessage(failure))
    }
  }

  const titles = new Map(chats.map((chat) => [chat.id, chat.title]))
  const sorted = rules && sortRules(rules)

  return (
    <div className="settings-section" aria-busy={!rules && !error ? true : undefined}>
      <header className="section-intro section-intro-row">
        <div>
          <h2>Permissions</h2>
          <p className="muted">
            Rules decide which tool calls run without asking, which ask, and which are refused. A rule is
            written <code>tool</code> or <code>tool(pattern)</code>, such as <code>bash(git status*)</code>,{' '}
            <code>edit_file(src/**)</code> or <code>everything__*</code>. Within a call, deny beats ask beats
            allow.
          </p>
        </div>
        {!adding && (
          <button type="button" className="primary" onClick={() => setAdding(true)}>
            Add rule
          </button>
        )}
      </header>
      {error && (
        <Notice tone="danger" role="alert">
          {error}
        </Notice>
      )}
      <p className="visually-hidden" role="status">
        {status}
      </p>
      {adding && (
        <PermissionRuleForm
          api={api}
          onCancel={() => setAdding(false)}
          onDone={(saved) => {
            setRules((current) => upsertById(current, saved))
            setAdding(false)
            setStatus(`Added ${saved.rule}.`)
          }}
        />
      )}
      <section className="setting-group rules-group" aria-labelledby={`${id}-rules`}>
        <h3 id={`${id}-rules`} ref={listHeading} tabIndex={-1}>
          Saved rules
        </h3>
        {!sorted && !error && <p className="muted">Loading rules…</p>}
        {sorted?.length === 0 && (
          <p className="muted">
            No rules yet. “Always allow…” on an approval card saves one; so does <strong>Add rule</strong>.
          </p>
        )}
        {sorted && sorted.length > 0 && (
          <ul className="item-list rule-list" aria-labelledby={`${id}-rules`}>
            {sorted.map((rule) => (
              <PermissionRuleCard
                key={rule.id}
                api={api}
                rule={rule}
                chatTitle={rule.chatId ? titles.get(rule.chatId) : undefined}
                onSaved={(saved) => setRules((current) => upsertById(current, saved))}
                onRevoke={() => void revoke(rule)}
              />
            ))}
          </ul>
        )}
      </section>
      <PathListGroup
        saved={preferences?.protectedPaths}
        onSave={(protectedPaths) => onChange({ protectedPaths })}
        title="Protected paths"
        hint={
          <>
            Changing one of these can run code later (a git hook, an <code>.envrc</code>, a package script,
            CI) or changes how an agent or editor behaves, so an edit to it asks first in every mode, Full
            auto included, unless a rule names it. A glob without <code>/</code> matches at any depth, one
            with <code>/</code> from the bound folder. Any file with an executable bit, and anything in a
            folder git takes for a repository, is protected too.
          </>
        }
        label="Protected paths"
        placeholder="secrets/**"
        saveLabel="Save protected paths"
        defaults={DEFAULT_PROTECTED_PATHS}
      />
    </div>
  )
}
