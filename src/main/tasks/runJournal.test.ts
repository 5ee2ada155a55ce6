import { describe, expect, it } from 'vitest'
import type { LoopEvent } from '../../shared/loopEvents'
import type { JournalRow } from '../store/chatRecordsRepo'
import { MAX_TEXT_CHARS, RunJournal } from './runJournal'

function journal(runOf: (task: number) => number | null = () => 7) {
  const rows: (JournalRow & { runId: number })[] = []
  const j = new RunJournal({
    runOf: (_p, task) => runOf(task),
    write: (runId, row) => rows.push({ runId, ...row }),
  })
  return { j, rows }
}

const tool = (iteration: number, summary: string): LoopEvent => ({
  type: 'tool.called',
  task: 1,
  iteration,
  name: 'read_file',
  args: {},
  ok: true,
  summary,
  durationMs: 1,
})

describe('run journal', () => {
  it('gives the text streamed since the last written row to a page read mid-stretch (a reload)', () => {
    const { j, rows } = journal()
    j.onEvent(1, { type: 'task.started', task: 1, message: 'm', continued: false })
    j.onEvent(1, { type: 'iteration.started', task: 1, iteration: 1, phase: 'plan', maxIterations: 5 })
    expect(j.unwritten(7)).toEqual([])
    j.onEvent(1, tool(1, 'first line'))
    j.onDelta(1, 1, 1, 'Reading the menu ')
    j.onDelta(1, 1, 1, 'now.')
    expect(j.unwritten(7)).toEqual([{ iteration: 1, pos: 1, kind: 'text', text: 'Reading the menu now.' }])
    expect(j.unwritten(8)).toEqual([])
    // Once written, it is the stored row's, not given twice.
    j.onFinished(1)
    expect(rows.at(-1)).toMatchObject({ kind: 'text', text: 'Reading the menu now.' })
    expect(j.unwritten(7)).toEqual([])
  })

  it('writes the text once per stretch, each tool answer at its number, and notices in order', () => {
    const { j, rows } = journal()
    j.onEvent(1, { type: 'task.started', task: 1, message: 'm', continued: false })
    j.onEvent(1, { type: 'iteration.started', task: 1, iteration: 1, phase: 'plan', maxIterations: 5 })
    for (const piece of ['I will ', 'read it.']) j.onDelta(1, 1, 1, piece)
    expect(rows).toEqual([])
    j.onEvent(1, tool(1, 'first line'))
    j.onDelta(1, 1, 1, 'Then plan.')
    j.onEvent(1, {
      type: 'phase.changed',
      task: 1,
      iteration: 1,
      from: 'plan',
      to: 'build',
      reason: 'planned',
    })
    j.onEvent(1, { type: 'iteration.started', task: 1, iteration: 2, phase: 'build', maxIterations: 5 })
    j.onDelta(1, 1, 2, 'Stuck.')
    j.onEvent(1, {
      type: 'stall.detected',
      task: 1,
      iteration: 2,
      kind: 'repeat',
      recovery: 1,
      action: 'recover',
      message: 'Same call again.',
    })
    j.onFinished(1)
    expect(rows.map(({ runId, iteration, pos, kind, text }) => [runId, iteration, pos, kind, text])).toEqual([
      [7, 1, 0, 'text', 'I will read it.'],
      [7, 1, 1, 'tool', 'first line'],
      [7, 1, 1, 'text', 'Then plan.'],
      [7, 1, 1, 'phase', 'Phase plan → build: planned'],
      [7, 2, 0, 'text', 'Stuck.'],
      [7, 2, 0, 'stall', 'Same call again.'],
    ])
  })

  it('keeps the start of a very long stretch and says how much more there was', () => {
    const { j, rows } = journal()
    j.onEvent(1, { type: 'iteration.started', task: 1, iteration: 1, phase: 'build', maxIterations: 5 })
    j.onDelta(1, 1, 1, 'a'.repeat(MAX_TEXT_CHARS - 10))
    j.onDelta(1, 1, 1, 'b'.repeat(1_010))
    j.onFinished(1)
    expect(rows).toHaveLength(1)
    expect(rows[0]!.text.startsWith('a'.repeat(MAX_TEXT_CHARS - 10) + 'b'.repeat(10))).toBe(true)
    expect(rows[0]!.text).toMatch(/\*\(1,000 more characters were streamed but not kept\.\)\*$/)
  })

  it('writes nothing before the run exists, and nothing for a stretch of blank text', () => {
    const { j, rows } = journal(() => null)
    j.onEvent(1, { type: 'iteration.started', task: 1, iteration: 1, phase: 'build', maxIterations: 5 })
    j.onDelta(1, 1, 1, 'lost')
    j.onEvent(1, tool(1, 'x'))
    expect(rows).toEqual([])
    const other = journal()
    other.j.onDelta(1, 1, 1, '  \n')
    other.j.onFinished(1)
    expect(other.rows).toEqual([])
  })
})
