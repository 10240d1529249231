import { type FormEvent, useEffect, useId, useRef, useState } from 'react'
import type { ProviderKind } from '../../../src-shared/agent'
import type { AtelierApi } from '../../../src-shared/api'
import type { Chat } from '../../../src-shared/contract'
import type { KeyStorage } from '../../../src-shared/providers'
import { errorMessage } from '../errors'
import { FolderField } from './settings/FolderField'
import { ProviderForm } from './settings/ProviderForm'
import { PROVIDER_KINDS } from './settings/provider-kinds'
import '../first-run.css'

type Step = 'provider' | 'folder' | 'prompt'

const STEPS: { step: Step; label: string }[] = [
  { step: 'provider', label: 'Connect a model' },
  { step: 'folder', label: 'Choose a folder' },
  { step: 'prompt', label: 'Ask' },
]

/** The kinds an environment key can set up in one click: each official API, by its variable. */
function environmentOffers(keyStorage: KeyStorage): { kind: ProviderKind; name: string; variable: string }[] {
  return PROVIDER_KINDS.filter((info) => info.kind !== 'openai-chat').flatMap((info) => {
    const variable = info.keyVariables.find((v) => keyStorage.environmentKeys.includes(v))
    return variable ? [{ kind: info.kind, name: info.shortLabel, variable }] : []
  })
}

interface WelcomeProps {
  api: AtelierApi
  /** Shows the chat the first run made (its first turn, if one was asked, already started). */
  onOpen(chat: Chat): void
}

/**
 * The first run, where there is no chat yet: a model to talk to (set up here, a key from the
 * environment offered in one click), a folder to work in, then the first prompt — each step
 * skippable, and each one's first control focused so the keyboard alone goes through.
 */
export function Welcome({ api, onOpen }: WelcomeProps) {
  const id = useId()
  const [step, setStep] = useState<Step>()
  const [keyStorage, setKeyStorage] = useState<KeyStorage>()
  const [folder, setFolder] = useState('')
  const [prompt, setPrompt] = useState('')
  const [error, setError] = useState<string>()
  const [busy, setBusy] = useState(false)
  /** The chat a failed start made: the next Start uses it rather than make another. */
  const made = useRef<Chat>(undefined)
  const stepSection = useRef<HTMLElement>(null)

  useEffect(() => {
    let live = true
    api.providers.list().then(
      (list) => {
        if (!live) return
        setKeyStorage(list.keyStorage)
        setStep((current) => current ?? (list.providers.length === 0 ? 'provider' : 'folder'))
      },
      () => live && setStep('folder'),
    )
    return () => {
      live = false
    }
  }, [api])

  // Each step puts the keyboard on its first control (not the first time: the page opens on it).
  const shownSteps = useRef(0)
  useEffect(() => {
    if (!step || shownSteps.current++ === 0) return
    stepSection.current?.querySelector<HTMLElement>('input, textarea, select, button')?.focus()
  }, [step])

  async function adoptEnvironmentKey(kind: ProviderKind, name: string) {
    setError(undefined)
    try {
      await api.providers.create({ kind, name })
      setStep('folder')
    } catch (failure) {
      setError(errorMessage(failure))
    }
  }

  /** Makes the chat (in the folder, in agent mode), starts its first turn if one was asked, and opens it. */
  async function start(ask: boolean) {
    setBusy(true)
    setError(undefined)
    try {
      let chat = made.current ?? (await api.chats.create({}))
      made.current = chat
      const path = folder.trim()
      if (path && chat.workingDir !== path) {
        chat = await api.chats.configure({ id: chat.id, workingDir: path, mode: 'agent' })
        made.current = chat
      }
      if (ask && prompt.trim()) await api.turns.start({ chatId: chat.id, prompt: prompt.trim() })
      onOpen(chat)
    } catch (failure) {
      setError(errorMessage(failure))
      setBusy(false)
    }
  }

  const offers = keyStorage ? environmentOffers(keyStorage) : []
  const index = STEPS.findIndex((s) => s.step === step)

  return (
    <section className="welcome" aria-labelledby={`${id}-title`}>
      <h1 id={`${id}-title`}>Welcome to Atelier</h1>
      <p className="muted">Three steps to a first answer; skip any of them.</p>
      <ol className="welcome-steps" aria-label="First steps">
        {STEPS.map((s, i) => (
          <li
            key={s.step}
            aria-current={s.step === step ? 'step' : undefined}
            className={i < index ? 'welcome-step--done' : undefined}
          >
            {s.label}
          </li>
        ))}
      </ol>
      {error && (
        <p className="field-error" role="alert">
          {error}
        </p>
      )}

      {step === 'provider' && keyStorage && (
        <section ref={stepSection} className="welcome-step" aria-labelledby={`${id}-provider`}>
          <h2 id={`${id}-provider`}>Connect a model</h2>
          {offers.length > 0 && (
            <div className="welcome-offers">
              <p>A key is set in the environment Atelier started from:</p>
              {offers.map((offer) => (
                <button
                  key={offer.kind}
                  type="button"
                  className="primary"
                  onClick={() => void adoptEnvironmentKey(offer.kind, offer.name)}
                >
                  Use {offer.name} with {offer.variable}
                </button>
              ))}
            </div>
          )}
          <p>
            {offers.length > 0 ? 'Or set up another provider' : 'Set up a provider'}: OpenAI, Gemini or
            Anthropic with a key, or a model on this computer — Ollama at{' '}
            <code>http://127.0.0.1:11434/v1</code> or LM Studio, as “OpenAI-compatible”, needs no key.
          </p>
          <ProviderForm
            api={api}
            keyStorage={keyStorage}
            onDone={() => setStep('folder')}
            onCancel={() => setStep('folder')}
          />
          <button type="button" className="ghost" onClick={() => setStep('folder')}>
            Skip: set up a model later
          </button>
        </section>
      )}

      {step === 'folder' && (
        <section ref={stepSection} className="welcome-step" aria-labelledby={`${id}-folder`}>
          <h2 id={`${id}-folder`}>Choose a project folder</h2>
          <form
            onSubmit={(event: FormEvent) => {
              event.preventDefault()
              setStep('prompt')
            }}
          >
            <FolderField
              api={api}
              label="Project folder"
              value={folder}
              onChange={setFolder}
              hint="The agent reads, searches and edits files there, asking first as the approval mode says."
            />
            <div className="form-actions">
              <button type="submit" className="primary">
                Continue
              </button>
              <button
                type="button"
                className="ghost"
                onClick={() => {
                  setFolder('')
                  setStep('prompt')
                }}
              >
                Skip: chat without a folder
              </button>
            </div>
          </form>
        </section>
      )}

      {step === 'prompt' && (
        <section ref={stepSection} className="welcome-step" aria-labelledby={`${id}-prompt`}>
          <h2 id={`${id}-prompt`}>Ask your first question</h2>
          <form
            onSubmit={(event: FormEvent) => {
              event.preventDefault()
              void start(true)
            }}
          >
            <label className="field-label" htmlFor={`${id}-prompt-text`}>
              First prompt
            </label>
            <textarea
              id={`${id}-prompt-text`}
              rows={3}
              value={prompt}
              placeholder={folder.trim() ? 'Ask about the project, or ask for a change…' : 'Ask anything…'}
              aria-describedby={`${id}-prompt-hint`}
              onChange={(event) => setPrompt(event.target.value)}
              onKeyDown={(event) => {
                if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing) {
                  event.preventDefault()
                  void start(true)
                }
              }}
            />
            <p className="field-hint" id={`${id}-prompt-hint`}>
              Enter sends, Shift+Enter starts a new line.
            </p>
            <div className="form-actions">
              <button type="submit" className="primary" disabled={busy || !prompt.trim()}>
                Start
              </button>
              <button type="button" className="ghost" disabled={busy} onClick={() => void start(false)}>
                Skip: open the chat
              </button>
            </div>
          </form>
        </section>
      )}
    </section>
  )
}
