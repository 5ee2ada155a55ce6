import { onlineManager } from '@tanstack/react-query'
import { describe, expect, it } from 'vitest'
import type { Client } from '../api'
import type { StatusListener } from '../api/client'
import { hostLostReason, pauseQueriesWhileDisconnected } from './useConnection'

describe('a web host that goes away', () => {
  it('stops sending with the reason, and only while it is gone', () => {
    expect(hostLostReason('restarted')).toMatch(/^The web host restarted: open the new address/)
    expect(hostLostReason('unreachable')).toMatch(/^The web host is not answering/)
    expect(hostLostReason('connected')).toBeNull()
    expect(hostLostReason('reconnecting')).toBeNull()
  })

  it('holds the queries while the host is gone, and lets them go when it is back', () => {
    let status: StatusListener = () => {}
    const client = {
      onStatus(listener: StatusListener) {
        status = listener
        listener(true)
        return () => {
          status = () => {}
        }
      },
    } as unknown as Client
    const off = pauseQueriesWhileDisconnected(client)
    expect(onlineManager.isOnline()).toBe(true)
    status(false, 'restarted')
    expect(onlineManager.isOnline()).toBe(false)
    status(true)
    expect(onlineManager.isOnline()).toBe(true)
    // A drop the socket is still retrying (or a page still connecting) holds nothing.
    status(false)
    expect(onlineManager.isOnline()).toBe(true)
    status(false, 'unreachable')
    expect(onlineManager.isOnline()).toBe(false)
    off()
    expect(onlineManager.isOnline()).toBe(true)
  })
})
