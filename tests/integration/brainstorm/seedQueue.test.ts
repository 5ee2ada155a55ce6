import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { isAppError } from '../../../src/shared/errors'
import { seedQueueFromRoadmap, tagCriterion } from '../../../src/main/brainstorm'
import { queryState } from '../../../src/main/queue'
import { makeTempDir } from '../../helpers/tempDir'
import { roadmapDoc } from './fixtures'
import { memoryLogger } from '../../../src/main/workspace/logFile'

let dir: ReturnType<typeof makeTempDir>
beforeEach(() => {
  dir = makeTempDir('ralph-seed-')
})
afterEach(() => dir.cleanup())

describe('roadmap → work queue', () => {
  it('writes one spec per track and tasks from deliverables and done_when, in dependency order', async () => {
    const seeded = await seedQueueFromRoadmap({
      projectDir: dir.path,
      roadmap: roadmapDoc(),
      logger: memoryLogger(),
    })
    expect(seeded.map((s) => s.spec)).toEqual([
      'specs/roadmap-track-1-recipe-import.md',
      'specs/roadmap-track-2-pantry.md',
    ])
    const spec = readFileSync(join(dir.path, seeded[1]!.spec), 'utf8')
    expect(spec).toContain('# Track 2: Pantry')
    expect(spec).toContain('- A recipe shows which ingredients are missing')
    expect(spec).toContain('Track 1: Recipe import (specs/roadmap-track-1-recipe-import.md)')

    const state = await queryState({ projectDir: dir.path })
    expect(state.spec).toBe('specs/roadmap-track-1-recipe-import.md')
    const byId = new Map(state.tasks.map((t) => [t.id, t]))
    const [importer, list, done1] = seeded[0]!.tasks.map((id) => byId.get(id)!)
    expect([importer!.name, list!.name, done1!.name]).toEqual([
      'URL importer',
      'Recipe list view',
      'Track 1 done: Recipe import',
    ])
    expect(done1!.deps).toEqual([importer!.id, list!.id])
    expect(done1!.accept.map((a) => [a.kind, a.text, a.tagged])).toEqual([
      ['DET', 'npm test passes with the importer tests', true],
      ['LLM', 'Importing a known URL yields its title and ingredients', true],
    ])
    const [pantry, done2] = seeded[1]!.tasks.map((id) => byId.get(id)!)
    // track 2 depends on track 1: its work waits for track 1's closing check
    expect(pantry!.deps).toEqual([done1!.id])
    expect(done2!.spec).toBe('specs/roadmap-track-2-pantry.md')
    expect(state.order.indexOf(done1!.id)).toBeLessThan(state.order.indexOf(pantry!.id))
  })

  it('refuses an invalid roadmap and a second seeding', async () => {
    const invalid = await seedQueueFromRoadmap({
      projectDir: dir.path,
      roadmap: '# ROADMAP\nno yaml',
      logger: memoryLogger(),
    }).catch((e: unknown) => e)
    expect(isAppError(invalid, 'invalid-input')).toBe(true)
    await seedQueueFromRoadmap({ projectDir: dir.path, roadmap: roadmapDoc(), logger: memoryLogger() })
    const again = await seedQueueFromRoadmap({
      projectDir: dir.path,
      roadmap: roadmapDoc(),
      logger: memoryLogger(),
    }).catch((e: unknown) => e)
    expect((again as Error).message).toMatch(/already turned into specs/)
  })

  it('tags criteria a command can decide DET:, the rest LLM:', () => {
    expect(tagCriterion('`npm run build` exits 0')).toBe('DET: `npm run build` exits 0')
    expect(tagCriterion('det: pytest passes')).toBe('DET: pytest passes')
    expect(tagCriterion('Users understand the onboarding')).toBe('LLM: Users understand the onboarding')
  })
})
