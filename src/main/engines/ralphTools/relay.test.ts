import { describe, expect, it } from 'vitest'
import { relayCommand, socketPathProblem } from './relay'

describe('the relay command', () => {
  it('runs the relay with Node, or with the Electron app as Node', () => {
    const at = { relay: '/s/rt-relay.cjs', socket: '/s/rt.sock', execPath: '/opt/Ralph/ralph' }
    expect(relayCommand({ ...at, electron: true })).toEqual({
      command: '/opt/Ralph/ralph',
      args: ['/s/rt-relay.cjs', '/s/rt.sock'],
      env: { ELECTRON_RUN_AS_NODE: '1' },
    })
    expect(relayCommand({ ...at, electron: false }).env).toEqual({})
    // A Node the caller names is plain Node, even under Electron.
    expect(relayCommand({ ...at, electron: true, nodePath: '/usr/bin/node' })).toMatchObject({
      command: '/usr/bin/node',
      env: {},
    })
  })
})

describe('socket paths', () => {
  it('take 107 bytes on Linux and 103 on macOS, counted in bytes', () => {
    const path = (n: number) => `/${'a'.repeat(n - 1)}`
    expect(socketPathProblem(path(107), 'linux')).toBeNull()
    expect(socketPathProblem(path(108), 'linux')).toMatch(/at most 107 bytes here and this one is 108/)
    expect(socketPathProblem(path(103), 'darwin')).toBeNull()
    expect(socketPathProblem(path(104), 'darwin')).toMatch(/at most 103 bytes/)
    expect(socketPathProblem(`/${'é'.repeat(54)}`, 'linux')).toMatch(/this one is 109/)
  })
})
