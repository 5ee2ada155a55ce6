// The project's engine setting in .ralph/config.json: written by the user, read by the loop's config.
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { parseEngineId, readProjectEngine, setProjectEngine } from '../../../src/main/engines'
import { RalphState } from '../../../src/main/loop/ralphState'
import { makeTempDir } from '../../helpers/tempDir'

const cleanups: (() => void)[] = []
afterEach(() => cleanups.splice(0).forEach((c) => c()))

function project(config?: unknown): string {
  const dir = makeTempDir('ralph-engine-cfg-')
  cleanups.push(dir.cleanup)
  if (config !== undefined) {
    mkdirSync(join(dir.path, '.ralph'))
    writeFileSync(join(dir.path, '.ralph/config.json'), JSON.stringify(config))
  }
  return dir.path
}

describe('the project engine setting', () => {
  it('is the built-in loop until the user picks one', async () => {
    expect(await readProjectEngine(project())).toEqual({ engine: 'built-in', engineModel: null })
  })

  it('keeps the rest of config.json and is what the loop config reads', async () => {
    const dir = project({ maxIterations: 7, commands: { test: 'npm test' } })
    expect(await setProjectEngine(dir, 'codex', ' gpt-5-codex ')).toEqual({
      engine: 'codex',
      engineModel: 'gpt-5-codex',
    })
    const json = JSON.parse(readFileSync(join(dir, '.ralph/config.json'), 'utf8'))
    expect(json).toMatchObject({ maxIterations: 7, commands: { test: 'npm test' }, engine: 'codex' })
    const loop = await new RalphState(dir).config()
    expect(loop).toMatchObject({ engine: 'codex', engineModel: 'gpt-5-codex', maxIterations: 7 })
    // The model stays when only the engine changes; an empty model clears it.
    expect(await setProjectEngine(dir, 'claude-code')).toEqual({
      engine: 'claude-code',
      engineModel: 'gpt-5-codex',
    })
    expect(await setProjectEngine(dir, 'claude-code', '')).toEqual({
      engine: 'claude-code',
      engineModel: null,
    })
  })

  it('refuses an unknown engine by name, listing the known ones', async () => {
    expect(() => parseEngineId('gemini')).toThrow(/Unknown engine "gemini".*built-in, claude-code, codex/)
    const dir = project({ engine: 'gemini' })
    await expect(new RalphState(dir).config()).rejects.toThrow(/config\.json.*engine/)
  })
})
