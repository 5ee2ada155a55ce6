import { describe, expect, it } from 'vitest'
import type { TaskCardStatus } from '../../../../shared/api/chat'
import { answersOf, foldAnswers } from './cardAnswers'
import { card, message } from './testData'

const user = (id: number, text: string, mode: 'task' | 'ask' = 'task') =>
  message({ id, kind: 'user', mode, text, card: null })
const task = (id: number, status: TaskCardStatus = 'complete') =>
  message({ id, kind: 'task', mode: null, text: '', card: card({ status }) })

describe('answers folded into their card', () => {
  it('puts a Task message that started no card under the card before it', () => {
    const folded = foldAnswers([user(1, 'add drinks'), task(2), user(3, 'Two new ones')])
    expect(folded.items.map((m) => m.id)).toEqual([1, 2])
    expect(answersOf(folded, 2)).toEqual(['Two new ones'])
  })

  it('leaves requests (a card follows), Ask questions and answers with no card before them alone', () => {
    const items = [
      user(1, 'orphan'),
      user(2, 'add drinks'),
      task(3),
      user(4, 'why?', 'ask'),
      user(5, 'next'),
      task(6),
    ]
    const folded = foldAnswers(items)
    expect(folded.items.map((m) => m.id)).toEqual([1, 2, 3, 4, 5, 6])
    expect(answersOf(folded, 3)).toEqual([])
  })

  it('keeps several answers in order, and a queued card is not the one answered', () => {
    const folded = foldAnswers([
      user(1, 'add drinks'),
      task(2, 'running'),
      user(3, 'Two new ones'),
      user(4, 'Warm ones'),
      user(5, 'later'),
      task(6, 'queued'),
    ])
    expect(answersOf(folded, 2)).toEqual(['Two new ones', 'Warm ones'])
    expect(folded.items.map((m) => m.id)).toEqual([1, 2, 5, 6])
  })
})
