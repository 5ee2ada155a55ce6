import { describe, expect, it } from 'vitest'
import { taskNotice } from './taskNotice'

describe('taskNotice', () => {
  it('announces a completed, failed or questioning task with its project, and not a stopped one', () => {
    expect(taskNotice('coffee', { task: 3, status: 'complete', message: 'Added two drinks.' })).toEqual({
      title: 'Task 3 complete · coffee',
      body: 'Added two drinks.',
    })
    expect(taskNotice('coffee', { task: 4, status: 'failed', message: 'Gates failed' })?.title).toBe(
      'Task 4 failed · coffee',
    )
    expect(
      taskNotice('coffee', { task: 5, status: 'needs-clarification', message: 'Which drinks?' })?.title,
    ).toBe('Task 5 asks a question · coffee')
    expect(taskNotice('coffee', { task: 6, status: 'stopped', message: 'Stopped.' })).toBeNull()
  })

  it('keeps the body to one short line', () => {
    const body = taskNotice('p', { task: 1, status: 'complete', message: `a\n\n${'x'.repeat(400)}` })!.body
    expect(body.length).toBe(180)
    expect(body.startsWith('a x')).toBe(true)
    expect(body.endsWith('…')).toBe(true)
  })
})
