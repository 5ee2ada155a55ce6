import { beforeEach, describe, expect, it } from 'vitest'
import { put } from '../tools/testkit'
import { useTempDir } from '../workspace/testkit'
import { buildIterationPrompt, promptCacheKey } from './context'
import { RalphState } from './ralphState'

const dir = useTempDir()

beforeEach(() => {
  put(dir.path, '.ralph/task.md', '# Task 3\nFix the totals.')
  put(dir.path, '.ralph/plan.tsx', 'export default (<App name="A" />)\n')
  put(dir.path, 'src/a.ts', 'export const a = 1\n')
  put(dir.path, 'AGENTS.md', 'Test with npm test.')
})

const build = (iteration: number) =>
  buildIterationPrompt({
    state: new RalphState(dir.path),
    taskNumber: 3,
    task: null,
    phase: 'build',
    iteration,
    maxIterations: 9,
  })

describe('buildIterationPrompt: stable first', () => {
  it('keeps the same bytes up to the iteration part, however feedback, progress and files change', async () => {
    const one = await build(1)
    put(dir.path, '.ralph/feedback.md', 'Gate failed: npm test exited 1.')
    put(dir.path, '.ralph/progress.md', 'Checkpoint: totals read.')
    put(dir.path, 'src/b.ts', 'export const b = 2\n')
    const two = await build(2)

    const { stableSystemChars: sys, stableFirstMessageChars: usr } = one.cache
    expect(two.cache).toEqual(one.cache)
    expect(two.system.slice(0, sys)).toBe(one.system.slice(0, sys))
    expect(two.user.slice(0, usr)).toBe(one.user.slice(0, usr))
    // What changes comes after: the phase after the system prompt's stable part, the iteration after the task.
    expect(one.system.slice(sys!)).toMatch(/^\n\n## Phase\nBUILD phase/)
    expect(one.user.slice(usr!)).toMatch(/^# Iteration 1 of at most 9 — task 3/)
    expect(two.user.slice(usr!)).toContain('Gate failed: npm test exited 1.')
    expect(two.user.slice(usr!)).toContain('Checkpoint: totals read.')
    expect(two.user.slice(usr!)).toContain('src/b.ts')
    expect(one.user.slice(0, usr)).toContain('Fix the totals.')
    // The rules files sit in the stable part, after the instructions.
    expect(one.system.slice(0, sys)).toMatch(/^You are Ralph[\s\S]*### AGENTS\.md\nTest with npm test\.$/)
    expect(one.cache.key).toBe(promptCacheKey(dir.path, 3))
  })

  it('names each task of each project apart for the cache', () => {
    expect(promptCacheKey('/p', 1)).not.toBe(promptCacheKey('/p', 2))
    expect(promptCacheKey('/p', 1)).not.toBe(promptCacheKey('/q', 1))
    expect(promptCacheKey('/p', 1).length).toBeLessThanOrEqual(64)
  })
})
