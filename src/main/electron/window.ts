import { BrowserWindow, shell } from 'electron'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'

export interface WindowPaths {
  preload: string
  rendererHtml: string
  /** electron-vite's dev server, when running `electron-vite dev`. */
  devServerUrl?: string
}

export function rendererUrl(paths: WindowPaths): string {
  return paths.devServerUrl ?? pathToFileURL(paths.rendererHtml).href
}

/** True for URLs of our own renderer (the built file, or the dev server); everything else is untrusted. */
export function trustedUrlCheck(paths: WindowPaths): (url: string) => boolean {
  const base = rendererUrl(paths).split('#')[0]!
  return (url) => url.split('#')[0] === base
}

/** The main window, locked down per DESIGN.md §14. */
export function createMainWindow(paths: WindowPaths): BrowserWindow {
  const win = new BrowserWindow({
    width: 1280,
    height: 820,
    minWidth: 860,
    minHeight: 560,
    title: 'Ralph Studio',
    backgroundColor: '#0f1115',
    show: false,
    webPreferences: {
      preload: paths.preload,
      sandbox: true,
      contextIsolation: true,
      nodeIntegration: false,
      webSecurity: true,
      spellcheck: false,
    },
  })
  const isTrusted = trustedUrlCheck(paths)
  win.webContents.on('will-navigate', (event, url) => {
    if (!isTrusted(url)) event.preventDefault()
  })
  win.webContents.setWindowOpenHandler(({ url }) => {
    // External links open in the user's browser, and only web links.
    if (/^https?:\/\//i.test(url)) void shell.openExternal(url)
    return { action: 'deny' }
  })
  win.once('ready-to-show', () => win.show())
  void win.loadURL(rendererUrl(paths))
  return win
}

export const defaultPaths = (mainDir: string): WindowPaths => ({
  preload: join(mainDir, '../preload/index.cjs'),
  rendererHtml: join(mainDir, '../renderer/index.html'),
  devServerUrl: process.env.ELECTRON_RENDERER_URL,
})
