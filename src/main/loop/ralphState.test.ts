import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { useTempDir } from '../workspace/testkit'
import { initRalphDir } from '../workspace/initRalphDir'
import { loopConfigSchema, RalphState } from './ralphState'

describe('RalphState', () => {
  const dir = useTempDir()

  it("reads the phase as 'plan' when phase.txt does not exist", async () => {
    expect(await new RalphState(dir.path).phase()).toBe('plan')
  })

  it('writes and reads the phase; init starts in plan', async () => {
    await initRalphDir(dir.path, { openedFrom: 'test' })
    const state = new RalphState(dir.path)
    expect(await state.phase()).toBe('plan')
    await state.setPhase('build')
    expect(await state.phase()).toBe('build')
    expect(await state.read('phase')).toBe('build\n')
  })

  it('fills config defaults and reports a broken config.json clearly', async () => {
    mkdirSync(join(dir.path, '.ralph'))
    writeFileSync(join(dir.path, '.ralph', 'config.json'), JSON.stringify({ maxIterations: 7 }))
    const state = new RalphState(dir.path)
    expect(await state.config()).toMatchObject({
      maxIterations: 7,
      stallThreshold: 3,
      commands: { test: null },
    })
    writeFileSync(join(dir.path, '.ralph', 'config.json'), '{ not json')
    await expect(state.config()).rejects.toThrow(/\.ralph\/config\.json is not valid JSON/)
    writeFileSync(join(dir.path, '.ralph', 'config.json'), JSON.stringify({ stallThreshold: 1 }))
    await expect(state.config()).rejects.toThrow(/stallThreshold/)
  })
})

describe('loopConfigSchema rules', () => {
  it('takes the rules files a project turns off, and refuses a broken entry at task start', () => {
    expect(loopConfigSchema.parse({ rules: { disabled: ['CLAUDE.md'] } }).rules).toEqual({
      disabled: ['CLAUDE.md'],
    })
    expect(loopConfigSchema.parse({}).rules).toBeUndefined()
    expect(loopConfigSchema.safeParse({ rules: { disabled: 'CLAUDE.md' } }).success).toBe(false)
  })
})
