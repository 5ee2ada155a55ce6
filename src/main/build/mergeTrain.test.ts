import { describe, expect, it } from 'vitest'
import { headStep, rootAfterApply, staleFrom, tipOf, type Car } from './mergeTrain'

const car = (
  taskId: string,
  base: string,
  commit: string | null,
  check: Car['check'],
  awaiting = false,
): Car => ({ taskId, base, commit, check, awaiting })

describe('the merge train', () => {
  it('chains candidates: each merges onto the last that counts, and the head applies once verified', () => {
    const train = [
      car('a', 'R', 'A', 'not-needed'),
      car('b', 'A', 'B', 'running'),
      car('c', 'B', 'C', 'PASS'),
    ]
    expect(tipOf(train, 'R')).toBe('C')
    expect(staleFrom(train, 'R')).toBe(-1)
    expect(headStep(train, 'R')).toBe('apply')
    // c passed before b: it waits for b, never applies ahead of it.
    expect(headStep(train.slice(1), 'A')).toBe('wait')
    expect(headStep([], 'R')).toBe('none')
  })

  it('a FAIL at k makes every candidate behind it stale; k fails only once it is the head', () => {
    const train = [car('a', 'R', 'A', 'running'), car('b', 'A', 'B', 'FAIL'), car('c', 'B', 'C', 'running')]
    // c was verifying on top of b's candidate: it is merged again onto a's.
    expect(staleFrom(train, 'R')).toBe(2)
    expect(tipOf(train.slice(0, 2), 'R')).toBe('A')
    // b's FAIL was on a tree with a's work: a FAIL of a makes b (and c) merge again too.
    const aFailed = [car('a', 'R', 'A', 'FAIL'), ...train.slice(1)]
    expect(staleFrom(aFailed, 'R')).toBe(1)
    expect(headStep(aFailed, 'R')).toBe('fail')
    // Merged again onto R, b verifies anew; only a FAIL on the integration state itself is b's own.
    expect(headStep([car('b', 'R', 'B2', 'FAIL')], 'R')).toBe('fail')
  })

  it('a conflict adds nothing to the chain: the cars behind build on the candidate before it', () => {
    const train = [
      car('a', 'R', 'A', 'running'),
      car('b', 'A', null, 'not-needed'),
      car('c', 'A', 'C', 'running'),
    ]
    expect(staleFrom(train, 'R')).toBe(-1)
    expect(tipOf(train, 'R')).toBe('C')
    // a applied as it was verified: b's conflict is against the integration state, so it is b's own.
    expect(headStep(train.slice(1), 'A')).toBe('fail')
    // a failed instead: b merges again onto R (its conflict may be gone), and c with it.
    expect(staleFrom([car('a', 'R', 'A', 'FAIL'), ...train.slice(1)], 'R')).toBe(1)
  })

  it('a head merged onto an old root waits to be merged again; the user’s edits kept by an apply move the root', () => {
    expect(headStep([car('b', 'A', 'B', 'PASS')], 'P')).toBe('wait')
    expect(staleFrom([car('b', 'A', 'B', 'PASS')], 'P')).toBe(0)
    expect(rootAfterApply('A', 'P', [])).toBe('A')
    expect(rootAfterApply('A', 'P', ['notes.txt'])).toBe('P')
  })

  it('a car whose lane is still judging its own work waits, whatever its merged tree said', () => {
    // Verified on the merged tree before its lane's own verdict: not applied yet.
    expect(headStep([car('a', 'R', 'A', 'PASS', true)], 'R')).toBe('wait')
    // Its merged tree failed, or it conflicted: still its lane's verdict first (a FAIL there takes it out).
    expect(headStep([car('a', 'R', 'A', 'FAIL', true)], 'R')).toBe('wait')
    expect(headStep([car('a', 'R', null, 'not-needed', true)], 'R')).toBe('wait')
    // The cars behind build on its candidate meanwhile; once it leaves the train they are stale.
    const train = [car('a', 'R', 'A', 'running', true), car('b', 'A', 'B', 'running')]
    expect(staleFrom(train, 'R')).toBe(-1)
    expect(staleFrom(train.slice(1), 'R')).toBe(0)
    expect(headStep([{ ...train[0]!, awaiting: false, check: 'PASS' }], 'R')).toBe('apply')
  })
})
