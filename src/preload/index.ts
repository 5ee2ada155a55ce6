import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron'
import { callNames, ipcChannels, type CallName, type EventEnvelope } from '../shared/api/contract'
import type { BridgeResult, RalphBridge } from '../shared/api/bridge'

const known = new Set<string>(callNames)

// Only the contract's calls and events cross: no ipcRenderer, no Node, no arbitrary channels.
const bridge: RalphBridge = {
  call(name, input) {
    if (!known.has(name)) {
      return Promise.resolve({
        ok: false,
        error: { kind: 'invalid-input', message: `Unknown call "${name}".` },
      })
    }
    return ipcRenderer.invoke(ipcChannels.call(name as CallName), input) as Promise<BridgeResult>
  },
  onEvent(listener) {
    const wrapped = (_event: IpcRendererEvent, envelope: EventEnvelope) => listener(envelope)
    ipcRenderer.on(ipcChannels.event, wrapped)
    return () => ipcRenderer.removeListener(ipcChannels.event, wrapped)
  },
}

contextBridge.exposeInMainWorld('ralph', bridge)
