/**
 * Exposes `window.atelier`, built from the contract's keys: one named function per method and one
 * `onEvent(listener)` per event, each returning its unsubscribe. Nothing else of Electron leaks.
 */
import { contextBridge, type IpcRendererEvent, ipcRenderer } from 'electron'
import { buildAtelierApi, type InvokeResult, settle } from '../src-shared/api'

const api = buildAtelierApi({
  invoke: async (method, request) => settle((await ipcRenderer.invoke(method, request)) as InvokeResult),
  subscribe: (event, listener) => {
    const forward = (_event: IpcRendererEvent, payload: unknown) => listener(payload)
    ipcRenderer.on(event, forward)
    return () => {
      ipcRenderer.removeListener(event, forward)
    }
  },
})

contextBridge.exposeInMainWorld('atelier', api)
