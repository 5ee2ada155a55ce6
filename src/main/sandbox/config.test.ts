import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { loopConfigSchema } from '../loop/ralphState'
import { put, removeDir, tempDir } from '../tools/testkit'
import { defaultSandboxLimits, homeAllowProblem, readSandboxConfig, updateSandboxConfig } from './config'

let dir: string
beforeEach(() => (dir = tempDir('ralph-sandbox-config-')))
afterEach(() => removeDir(dir))

const withConfig = (text: string) => {
  put(dir, '.ralph/config.json', text)
  return readSandboxConfig(dir)
}

const defaults = {
  network: true,
  passEnv: [],
  allowEnvFiles: false,
  homeAllow: [],
  limits: defaultSandboxLimits,
}
const closed = { ...defaults, network: false }

describe('readSandboxConfig', () => {
  it('defaults to the network on, nothing passed, no .env, the default limits', async () => {
    expect(await readSandboxConfig(dir)).toEqual(defaults)
    expect(await withConfig('{"maxIterations":5}')).toEqual(defaults)
    expect(defaultSandboxLimits).toEqual({ memoryMb: 4096, processes: 512, fileSizeMb: 2048, tmpMb: 512 })
  })

  it('reads the project settings', async () => {
    expect(
      await withConfig(
        '{"sandbox":{"network":false,"passEnv":["DATABASE_URL"],"allowEnvFiles":true,"homeAllow":[".asdf"],"limits":{"processes":64}}}',
      ),
    ).toEqual({
      network: false,
      passEnv: ['DATABASE_URL'],
      allowEnvFiles: true,
      homeAllow: ['.asdf'],
      limits: { ...defaultSandboxLimits, processes: 64 },
    })
  })

  it('fails closed on a broken field or file', async () => {
    expect(await withConfig('{"sandbox":{"network":"yes"}}')).toEqual(closed)
    expect(await withConfig('{"sandbox":{"passEnv":["A=B"]}}')).toEqual(closed)
    expect(await withConfig('{"sandbox":{"allowEnvFiles":"yes"}}')).toEqual(closed)
    expect(await withConfig('{"sandbox":{"allowEnvFiles":true,"homeAllow":[".ssh"]}}')).toEqual(closed)
    expect(await withConfig('{"sandbox":{"limits":{"processes":-1}}}')).toEqual(closed)
    expect(await withConfig('{not json')).toEqual(closed)
  })

  it('is part of the loop config, with defaults', () => {
    expect(loopConfigSchema.parse({}).sandbox).toEqual({ network: true, passEnv: [] })
    expect(loopConfigSchema.safeParse({ sandbox: { network: 1 } }).success).toBe(false)
  })
})

describe('homeAllowProblem', () => {
  it('takes folders relative to home, never a credential store, a parent of one, or a climb', () => {
    for (const ok of ['.asdf', '.local/share/pnpm', 'tools/bin', '.config/nvim'])
      expect(homeAllowProblem(ok), ok).toBeNull()
    for (const bad of [
      '',
      '/etc',
      '~/.nvm',
      '../other',
      'a/../../b',
      '.ssh',
      '.SSH/keys',
      '.aws',
      '.config/gh',
      '.npmrc',
      '.config',
      '.local',
      '.',
      'C:/x',
    ]) {
      expect(homeAllowProblem(bad), bad).not.toBeNull()
    }
  })
})

describe('updateSandboxConfig', () => {
  it('changes one setting and keeps the rest of the file', async () => {
    put(dir, '.ralph/config.json', '{"maxIterations":7,"sandbox":{"passEnv":["X"]}}')
    expect((await updateSandboxConfig(dir, { allowEnvFiles: true })).allowEnvFiles).toBe(true)
    expect(JSON.parse(readFileSync(join(dir, '.ralph/config.json'), 'utf8'))).toEqual({
      maxIterations: 7,
      sandbox: { passEnv: ['X'], allowEnvFiles: true },
    })
    expect((await readSandboxConfig(dir)).allowEnvFiles).toBe(true)
  })

  it('refuses to rewrite a file it cannot read as JSON', async () => {
    put(dir, '.ralph/config.json', '{broken')
    await expect(updateSandboxConfig(dir, { allowEnvFiles: true })).rejects.toThrow(/not valid JSON/)
    expect(readFileSync(join(dir, '.ralph/config.json'), 'utf8')).toBe('{broken')
  })
})
