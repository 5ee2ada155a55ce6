import { app, BrowserWindow, dialog, session } from 'electron'
import { createCore } from '../api/core'
import { resolveAppDataDir } from '../workspace/appPaths'
import { bindIpc } from './ipcBinding'
import { announceFinishedTasks } from './notifications'
import { createDesktopVault } from './safeStorageVault'
import { createMainWindow, defaultPaths, trustedUrlCheck } from './window'

// The desktop host: the same core as the web host and the CLI, reached through IPC instead of HTTP.
async function start(): Promise<void> {
  await app.whenReady()
  const appDataDir = resolveAppDataDir()
  const paths = defaultPaths(import.meta.dirname)
  let core
  try {
    core = createCore({
      appDataDir,
      env: process.env,
      version: app.getVersion(),
      host: {
        kind: 'electron',
        openedFrom: 'Ralph Studio desktop app',
        vault: createDesktopVault(appDataDir),
        nativeBinding: process.env.RALPH_NATIVE_BINDING,
        pickFolder: async () => {
          const focused = BrowserWindow.getFocusedWindow()
          const options = {
            title: 'Open a project folder',
            properties: ['openDirectory', 'createDirectory'] as const,
          }
          const result = focused
            ? await dialog.showOpenDialog(focused, { ...options, properties: [...options.properties] })
            : await dialog.showOpenDialog({ ...options, properties: [...options.properties] })
          return result.canceled ? null : (result.filePaths[0] ?? null)
        },
        // Locate… an engine's program: hidden folders shown (~/.local/bin, ~/.npm-global/bin hold them).
        pickFile: async (title) => {
          const focused = BrowserWindow.getFocusedWindow()
          const options = { title, properties: ['openFile' as const, 'showHiddenFiles' as const] }
          const result = focused
            ? await dialog.showOpenDialog(focused, options)
            : await dialog.showOpenDialog(options)
          return result.canceled ? null : (result.filePaths[0] ?? null)
        },
      },
    })
  } catch (err) {
    dialog.showErrorBox('Ralph Studio cannot start', (err as Error).message)
    app.exit(1)
    return
  }
  // No permission prompts (camera, notifications …) for web content: the app needs none.
  session.defaultSession.setPermissionRequestHandler((_wc, _permission, callback) => callback(false))
  bindIpc(core, trustedUrlCheck(paths), () => BrowserWindow.getAllWindows())
  createMainWindow(paths)
  announceFinishedTasks(core)
  app.on('activate', () => {
    if (BrowserWindow.getAllWindows().length === 0) createMainWindow(paths)
  })
  app.on('window-all-closed', () => {
    if (process.platform !== 'darwin') app.quit()
  })
  let quitting = false
  app.on('before-quit', (event) => {
    if (quitting) return
    // Running tasks end interrupted (resumable) before the store closes, then quit for real.
    event.preventDefault()
    quitting = true
    void core.close('Ralph Studio quit').finally(() => app.quit())
  })
}

void start()
