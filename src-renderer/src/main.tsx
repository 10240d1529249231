// The base stylesheet first, so each view's own stylesheet can build on it.
import './styles.css'
import { StrictMode } from 'react'
import { createRoot } from 'react-dom/client'
import type { AtelierApi } from '../../src-shared/api'
import { App } from './App'
import { errorMessage } from './errors'
import { connectWebBridge } from './web-bridge'

async function resolveApi(): Promise<AtelierApi> {
  if (window.atelier) return window.atelier
  const api = await connectWebBridge()
  Object.defineProperty(window, 'atelier', { value: api, writable: false, configurable: false })
  return api
}

const root = createRoot(document.getElementById('root') as HTMLElement)
resolveApi().then(
  (api) =>
    root.render(
      <StrictMode>
        <App api={api} />
      </StrictMode>,
    ),
  (error: unknown) =>
    root.render(
      <main className="fatal" role="alert">
        <h1>Atelier could not connect</h1>
        <p>{errorMessage(error)}</p>
      </main>,
    ),
)
