import { describe, expect, it } from 'vitest'
import { resumeRefusal, runRowPlace } from './taskStart'

describe('runRowPlace: where a task keeps its run row', () => {
  it("keeps a lane's on the user's project with the lane's number, any other on its own folder", () => {
    expect(runRowPlace({ projectDir: '/p' })).toEqual({ projectPath: '/p', lane: null })
    expect(runRowPlace({ projectDir: '/lanes/x/lane-2', recordAs: { projectPath: '/p', lane: 2 } })).toEqual({
      projectPath: '/p',
      lane: 2,
    })
  })
})

describe('resumeRefusal', () => {
  it('refuses a resume only when the interrupted iteration was the last allowed, saying what to pass', () => {
    expect(resumeRefusal(5, 3, 10)).toBeNull()
    expect(resumeRefusal(5, 10, 10)).toBe(
      'Task 5 was interrupted in iteration 10, its last of 10: resuming needs more. Pass --max-iterations 20 ' +
        '(or raise maxIterations in .ralph/config.json).',
    )
  })
})
