/**
 * Electron entry: the only main-process file that imports `electron`. It opens the one window with
 * locked-down preferences, serves the renderer from our own scheme with a strict CSP, and binds each
 * contract method to the same dispatcher the CLI and the web host use.
 */
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import {
  app,
  BrowserWindow,
  dialog,
  type IpcMainInvokeEvent,
  ipcMain,
  nativeTheme,
  type OpenDialogOptions,
  protocol,
  safeStorage,
  session,
  shell,
  utilityProcess,
  type WebContents,
} from 'electron'
import type { InvokeResult } from '../src-shared/api'
import { methodNames } from '../src-shared/contract'
import { toErrorPayload } from '../src-shared/errors'
import { type Atelier, createAtelier } from './app/create-atelier'
import { PRODUCT_NAME, resolveDataDir } from './app/data-dir'
import type { SecretStore } from './providers/provider-service'
import type { FromHost } from './tools/custom/host-protocol'
import type { HostChannel } from './tools/custom/tool-host-process'
import { opensInBrowser } from './tools/mcp/oauth/mcp-oauth'
import { contentSecurityPolicy } from './web/content-security-policy'
import { readStaticFile, staticFileHeaders } from './web/static-files'

const APP_SCHEME = 'atelier'
const APP_HOST = 'app'
const APP_URL = `${APP_SCHEME}://${APP_HOST}/index.html`
const RENDERER_DIR = fileURLToPath(new URL('../renderer', import.meta.url))
const PRELOAD = fileURLToPath(new URL('../preload/index.cjs', import.meta.url))
const POLICY = contentSecurityPolicy()

app.setName(PRODUCT_NAME)
// Same folder as the CLI's default; ATELIER_DATA_DIR moves both (tests use it for isolation).
const dataDir = resolveDataDir(undefined)
app.setPath('userData', dataDir)
app.enableSandbox()
protocol.registerSchemesAsPrivileged([
  { scheme: APP_SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true } },
])

let atelier: Atelier | undefined
let mainWindow: BrowserWindow | undefined

function isAppUrl(url: string): boolean {
  try {
    const parsed = new URL(url)
    return parsed.protocol === `${APP_SCHEME}:` && parsed.host === APP_HOST
  } catch {
    return false
  }
}

/** Calls are accepted only from our window's top frame while it shows our own page. */
function isTrustedSender(event: IpcMainInvokeEvent): boolean {
  const frame = event.senderFrame
  return (
    mainWindow !== undefined &&
    event.sender.id === mainWindow.webContents.id &&
    frame !== null &&
    frame.parent === null &&
    isAppUrl(frame.url)
  )
}

/** Only https links leave the app, and only to the user's browser; nothing else navigates. */
function openInBrowserIfHttps(url: string): void {
  if (URL.canParse(url) && new URL(url).protocol === 'https:') void shell.openExternal(url)
}

function harden(contents: WebContents): void {
  contents.on('will-navigate', (event) => {
    event.preventDefault()
    openInBrowserIfHttps(event.url)
  })
  contents.on('will-redirect', (event) => event.preventDefault())
  contents.on('will-attach-webview', (event) => event.preventDefault())
  contents.setWindowOpenHandler(({ url }) => {
    openInBrowserIfHttps(url)
    return { action: 'deny' }
  })
}

/** Electron's ABI differs from Node's: `npm start` builds better-sqlite3 for it into `.native/`. */
function electronNativeBinding(): string | undefined {
  const file = join(
    app.getAppPath(),
    '.native',
    `electron-${process.versions.electron}`,
    'better_sqlite3.node',
  )
  return existsSync(file) ? file : undefined
}

function bindContract(services: Atelier): void {
  for (const method of methodNames) {
    ipcMain.handle(method, (event, request: unknown): Promise<InvokeResult> | InvokeResult => {
      if (!isTrustedSender(event)) {
        return {
          ok: false,
          error: { code: 'forbidden', message: 'Calls are accepted only from the Atelier window.' },
        }
      }
      return services.dispatch(method, request)
    })
  }
  services.events.subscribe((event, payload) => mainWindow?.webContents.send(event, payload))
}

function createWindow(): void {
  const window = new BrowserWindow({
    title: PRODUCT_NAME,
    width: 1200,
    height: 800,
    minWidth: 720,
    minHeight: 480,
    show: false,
    icon: join(app.getAppPath(), 'resources', 'icon.png'),
    backgroundColor: nativeTheme.shouldUseDarkColors ? '#17181c' : '#ffffff',
    webPreferences: {
      preload: PRELOAD,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      webviewTag: false,
    },
  })
  mainWindow = window
  window.once('ready-to-show', () => window.show())
  window.on('closed', () => {
    if (mainWindow === window) mainWindow = undefined
  })
  void window.loadURL(APP_URL)
}

/** The native folder dialog, over the window, for binding a chat to a project folder. */
async function pickFolderWithDialog(): Promise<string | null> {
  const options: OpenDialogOptions = {
    title: 'Choose the project folder',
    properties: ['openDirectory', 'createDirectory'],
  }
  const result = mainWindow
    ? await dialog.showOpenDialog(mainWindow, options)
    : await dialog.showOpenDialog(options)
  return result.canceled ? null : (result.filePaths[0] ?? null)
}

/** API keys encrypted by the OS keychain; none when the OS offers no encryption at all. */
function keychain(): SecretStore | undefined {
  if (!safeStorage.isEncryptionAvailable()) return undefined
  return {
    // On Linux without a keyring Electron falls back to a hard-coded password: say so in the panel.
    plainText: process.platform === 'linux' && safeStorage.getSelectedStorageBackend() === 'basic_text',
    encrypt: (text) => safeStorage.encryptString(text),
    decrypt: (data) => safeStorage.decryptString(data),
  }
}

/**
 * A custom tool host as an Electron utility process: Node's fork would need ELECTRON_RUN_AS_NODE,
 * a fuse the packaged app turns off (scripts/after-pack.ts).
 */
function utilityToolHost(entry: string, execArgv: string[], env: NodeJS.ProcessEnv): HostChannel {
  const child = utilityProcess.fork(entry, [], {
    execArgv,
    env,
    stdio: 'pipe',
    serviceName: 'Atelier tool host',
  })
  return {
    send: (message) => child.postMessage(message),
    onMessage: (listener) => child.on('message', (message) => listener(message as FromHost)),
    onExit: (listener) => child.once('exit', (code) => listener(code)),
    onOutput: (listener) => {
      child.stdout?.on('data', (chunk: Buffer) => listener(chunk.toString('utf8')))
      child.stderr?.on('data', (chunk: Buffer) => listener(chunk.toString('utf8')))
    },
    kill: () => {
      child.kill()
    },
  }
}

app.on('web-contents-created', (_event, contents) => harden(contents))

app.whenReady().then(() => {
  try {
    atelier = createAtelier({
      dataDir,
      nativeBinding: electronNativeBinding(),
      secrets: keychain(),
      pickFolder: pickFolderWithDialog,
      hasUI: true,
      spawnToolHost: utilityToolHost,
      systemDark: () => nativeTheme.shouldUseDarkColors,
      // An MCP server's sign-in page: https, or http on this machine — checked here too, so no other
      // page ever reaches the system browser through this.
      openExternal: (url) => (opensInBrowser(url) ? shell.openExternal(url).then(() => true) : false),
    })
  } catch (error) {
    dialog.showErrorBox(`${PRODUCT_NAME} cannot start`, toErrorPayload(error).message)
    app.exit(1)
    return
  }
  // One permission, for our own page only: notifications (a turn finished, failed or waits for the
  // person while the window is behind others). Every other request is refused.
  session.defaultSession.setPermissionRequestHandler((_contents, permission, callback, details) =>
    callback(permission === 'notifications' && isAppUrl(details.requestingUrl)),
  )
  session.defaultSession.setPermissionCheckHandler(
    (_contents, permission, requestingOrigin) => permission === 'notifications' && isAppUrl(requestingOrigin),
  )
  protocol.handle(APP_SCHEME, async (request) => {
    const url = new URL(request.url)
    const file = url.host === APP_HOST ? await readStaticFile(RENDERER_DIR, url.pathname) : undefined
    if (!file) return new Response('Not found', { status: 404 })
    return new Response(new Uint8Array(file.body), { headers: staticFileHeaders(file, POLICY) })
  })
  bindContract(atelier)
  createWindow()
  app.on('activate', () => {
    if (BrowserWindow.getAllWindows().length === 0) createWindow()
  })
})

app.on('window-all-closed', () => {
  if (process.platform !== 'darwin') app.quit()
})

// Quitting waits for the MCP servers (and everything they started) to end, so none is orphaned.
app.on('will-quit', (event) => {
  const closing = atelier
  if (!closing) return
  atelier = undefined
  event.preventDefault()
  void closing.close().finally(() => app.quit())
})
