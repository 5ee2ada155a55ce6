import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { loopConfigSchema } from '../loop/ralphState'
import { put, removeDir, tempDir } from '../tools/testkit'
import { readSandboxConfig } from './config'

let dir: string
beforeEach(() => (dir = tempDir('ralph-sandbox-config-')))
afterEach(() => removeDir(dir))

const withConfig = (text: string) => {
  put(dir, '.ralph/config.json', text)
  return readSandboxConfig(dir)
}

describe('readSandboxConfig', () => {
  it('defaults to the network on and nothing passed', async () => {
    expect(await readSandboxConfig(dir)).toEqual({ network: true, passEnv: [] })
    expect(await withConfig('{"maxIterations":5}')).toEqual({ network: true, passEnv: [] })
  })

  it('reads the project settings', async () => {
    expect(await withConfig('{"sandbox":{"network":false,"passEnv":["DATABASE_URL"]}}')).toEqual({
      network: false,
      passEnv: ['DATABASE_URL'],
    })
  })

  it('fails closed on a broken field or file', async () => {
    expect(await withConfig('{"sandbox":{"network":"yes"}}')).toEqual({ network: false, passEnv: [] })
    expect(await withConfig('{"sandbox":{"passEnv":["A=B"]}}')).toEqual({ network: false, passEnv: [] })
    expect(await withConfig('{not json')).toEqual({ network: false, passEnv: [] })
  })

  it('is part of the loop config, with defaults', () => {
    expect(loopConfigSchema.parse({}).sandbox).toEqual({ network: true, passEnv: [] })
    expect(loopConfigSchema.safeParse({ sandbox: { network: 1 } }).success).toBe(false)
  })
})
