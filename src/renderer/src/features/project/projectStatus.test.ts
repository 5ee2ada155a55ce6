import { describe, expect, it } from 'vitest'
import type { ProjectState } from '../../../../shared/project'
import { projectDetail } from '../../test/fixtures'
import { currentPhase, lastTaskWords, projectHeadline } from './projectStatus'

const state = (patch: Partial<ProjectState>): ProjectState => ({ ...projectDetail().state, ...patch })
const last = (status: string, task = 3, title: string | null = 'Cake sizes') => ({ task, title, status })
const headline = (s: ProjectState, taskRunning = false) =>
  projectHeadline({ state: s, taskRunning, build: null, buildRunning: false })

describe('projectHeadline: one source for the header’s status', () => {
  it('says what the newest run row says, whatever .ralph/status still holds', () => {
    // A dismissed question: .ralph/status says failed (or still waiting until re-read), the row says stopped.
    for (const folder of ['failed', 'waiting'] as const) {
      expect(headline(state({ status: folder, taskCount: 3, lastTask: last('stopped') }))).toMatchObject({
        label: 'Stopped',
        sentence: 'Last task was stopped',
      })
    }
    expect(headline(state({ status: 'waiting', taskCount: 3, lastTask: last('waiting') }))).toMatchObject({
      label: 'Waiting for your answer',
      tone: 'warn',
      sentence: 'Waiting for your answer',
    })
    expect(headline(state({ status: 'failed', taskCount: 3, lastTask: last('failed') }))).toMatchObject({
      label: 'Failed',
      sentence: 'Last task failed',
    })
    expect(headline(state({ status: 'complete', taskCount: 3, lastTask: last('complete') }))).toMatchObject({
      label: 'Complete',
      sentence: 'Last task complete',
    })
    expect(headline(state({ status: 'interrupted', lastTask: last('interrupted') }))).toMatchObject({
      label: 'Interrupted',
      sentence: 'Last task was interrupted',
    })
  })

  it('says Running while a task runs, whatever the last row says', () => {
    expect(headline(state({ status: 'complete', lastTask: last('complete') }), true)).toMatchObject({
      label: 'Running',
      sentence: 'A task is running',
    })
  })

  it('reads .ralph/status only before any run: a new project waits for its first message', () => {
    expect(headline(state({ status: 'waiting', taskCount: 0, lastTask: null }))).toMatchObject({
      label: 'Ready',
      sentence: 'Waiting for your first message',
    })
    expect(headline(state({ status: 'idle', lastTask: null }))).toMatchObject({
      label: 'Idle',
      sentence: 'Idle — no task yet',
    })
    // A folder whose tasks ran before this app kept rows still says how its last one ended.
    expect(headline(state({ status: 'complete', taskCount: 2, lastTask: null }))).toMatchObject({
      label: 'Complete',
      sentence: 'Last task complete',
    })
  })

  it('lets a panel build speak while it runs, or when it ended needing the user and no chat task runs', () => {
    const build = {
      tone: 'warn' as const,
      label: 'Escalated',
      detail: 'Write b.txt',
      hint: 'Three failures.',
    }
    const s = state({ status: 'failed', lastTask: last('failed') })
    expect(projectHeadline({ state: s, taskRunning: false, build, buildRunning: false })).toEqual({
      ...build,
      sentence: 'Escalated: Three failures.',
    })
    // A chat task started after it: the build is behind the user.
    expect(projectHeadline({ state: s, taskRunning: true, build, buildRunning: false }).label).toBe('Running')
    expect(
      projectHeadline({ state: s, taskRunning: true, build: { ...build, hint: null }, buildRunning: true }),
    ).toMatchObject({ label: 'Escalated', sentence: 'Escalated: Write b.txt' })
  })
})

describe('the details: phase and last task as the cards have them', () => {
  it('names the phase only while a task runs (.ralph/phase keeps the last one after)', () => {
    expect(currentPhase(state({ phase: 'build', lastTask: last('complete') }), false)).toBeNull()
    expect(currentPhase(state({ phase: 'plan', lastTask: last('running') }), true)).toBe('PLAN')
    expect(currentPhase(state({ phase: null }), true)).toBeNull()
  })

  it('names the newest task as its card does, never a count of attempts', () => {
    expect(lastTaskWords(state({ taskCount: 9, lastTask: last('stopped', 4, 'Cake sizes') }))).toBe(
      'Task 4: Cake sizes · Stopped',
    )
    expect(lastTaskWords(state({ lastTask: last('complete', 2, null) }))).toBe('Task 2 · Complete')
    expect(lastTaskWords(state({ taskCount: 0, lastTask: null }))).toBe('None yet')
  })
})
