import { describe, expect, it } from 'vitest'
import type { UserEditsQuestion } from '../../shared/queueBuild'
import { UserEditsAnswers } from './queueUserEdits'

const question: UserEditsQuestion = {
  type: 'build.user-edits',
  taskId: 't-a',
  name: 'Write a.txt',
  task: 4,
  lane: 2,
  paths: ['a.txt'],
  question: 'Keep?',
}

describe('the panel’s answers to a build’s question about the user’s edits', () => {
  it('waits for the project’s answer; another project’s or a second answer finds none waiting', async () => {
    const answers = new UserEditsAnswers()
    expect(answers.answer(1, 'stop')).toBe(false)
    const asked = answers.asker(1)(question, new AbortController().signal)
    expect(answers.answer(2, 'take-task')).toBe(false)
    expect(answers.answer(1, 'take-task')).toBe(true)
    expect(await asked).toBe('take-task')
    expect(answers.answer(1, 'keep-theirs')).toBe(false)
  })

  it('hears stop when the build is stopped while it asks', async () => {
    const answers = new UserEditsAnswers()
    const stop = new AbortController()
    const asked = answers.asker(1)(question, stop.signal)
    stop.abort()
    expect(await asked).toBe('stop')
    expect(answers.answer(1, 'keep-theirs')).toBe(false)
    const late = new AbortController()
    late.abort()
    expect(await answers.asker(1)(question, late.signal)).toBe('stop')
  })
})
