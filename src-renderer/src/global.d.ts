import type { AtelierApi } from '../../src-shared/api'

declare global {
  interface Window {
    /** Set by the preload in Electron, or by the web bridge in a browser. */
    atelier?: AtelierApi
  }
}
