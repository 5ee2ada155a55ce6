import { describe, expect, it } from 'vitest'
import { keptFate, keptMessage, keptRef, parseKeptMessage, settleKept, type KeptState } from './laneKeep'

const base = 'a'.repeat(40)
const kept: KeptState = {
  ref: keptRef(7),
  task: 7,
  taskId: 't-abc',
  lane: 2,
  base,
  commit: 'b'.repeat(40),
  keptAt: 0,
}

describe('a stopped lane’s kept work', () => {
  it('reads back what its commit message records, and nothing Ralph did not write', () => {
    const message = keptMessage({ task: 7, taskId: 't-abc', lane: 2, base })
    expect(message.split('\n')[0]).toBe('lane 2 stopped: task 7 (t-abc)')
    expect(parseKeptMessage(message)).toEqual({ task: 7, taskId: 't-abc', lane: 2, base })
    expect(parseKeptMessage('a commit of someone else\n')).toBeNull()
    expect(parseKeptMessage(message.replace(base, 'not-a-commit'))).toBeNull()
    expect(parseKeptMessage(message.replace('Ralph-Lane: 2', 'Ralph-Lane: 0'))).toBeNull()
    expect(keptRef(7)).toBe('refs/lanes/7/stopped')
    expect(() => keptRef(0)).toThrow(RangeError)
  })

  it('is resumed for a task still pending and discarded, saying why, for one that is not', () => {
    expect(keptFate(kept, new Set(['t-abc', 't-x']))).toEqual({ do: 'resume' })
    const gone = keptFate(kept, new Set(['t-x']))
    expect(gone).toMatchObject({ do: 'discard' })
    expect(gone.do === 'discard' && gone.reason).toMatch(/t-abc is no longer pending.*task 7.*discarded/)
  })

  it('settles every kept state at a build’s start: the newest of a pending task resumes, the rest go with why', () => {
    const of = (task: number, taskId: string): KeptState => ({ ...kept, ref: keptRef(task), task, taskId })
    const { resume, discard } = settleKept(
      [of(3, 't-abc'), of(9, 't-abc'), of(4, 't-gone'), of(5, 't-x')],
      new Set(['t-abc', 't-x']),
    )
    expect(resume.map((k) => k.task)).toEqual([5, 9])
    expect(discard.map((d) => [d.kept.task, d.reason])).toEqual([
      [4, expect.stringMatching(/t-gone is no longer pending/)],
      [3, 't-abc has newer kept work: task 3’s is discarded.'.replace('’', "'")],
    ])
    expect(settleKept([], new Set(['t-abc']))).toEqual({ resume: [], discard: [] })
  })
})
