import { ipcMain, type BrowserWindow, type IpcMainInvokeEvent } from 'electron'
import { callNames, ipcChannels } from '../../shared/api/contract'
import type { Core } from '../api/core'

/**
 * Serves the contract over IPC: one handler per call, channel names derived from the contract. Only frames
 * loaded from our own renderer may call; anything else gets an 'unauthorized' error.
 */
export function bindIpc(
  core: Core,
  isTrustedUrl: (url: string) => boolean,
  windows: () => BrowserWindow[],
): () => void {
  const trusted = (event: IpcMainInvokeEvent) => {
    const url = event.senderFrame?.url ?? ''
    return isTrustedUrl(url)
  }
  for (const name of callNames) {
    ipcMain.handle(ipcChannels.call(name), async (event, input: unknown) => {
      if (!trusted(event)) return { ok: false, error: { kind: 'unauthorized', message: 'Untrusted sender.' } }
      return core.dispatch(name, input)
    })
  }
  const unsubscribe = core.events.subscribe((envelope) => {
    for (const win of windows()) if (!win.isDestroyed()) win.webContents.send(ipcChannels.event, envelope)
  })
  return () => {
    unsubscribe()
    for (const name of callNames) ipcMain.removeHandler(ipcChannels.call(name))
  }
}
