import { describe, expect, it } from 'vitest'
import type { StructuredTask } from '../../shared/task'
import type { RunRow } from '../store/runsRepo'
import { renderTaskMarkdown } from '../tasks'
import { structuredFromTaskMarkdown } from './resume'

const run = (patch: Partial<RunRow> = {}): RunRow => ({
  id: 1,
  projectPath: '/p',
  task: 3,
  message: 'm',
  type: 'mutation',
  title: 'Refine the landing page',
  status: 'interrupted',
  reason: 'interrupted',
  iterations: 1,
  startedAt: 0,
  endedAt: 1,
  lane: null,
  ...patch,
})

describe('structuredFromTaskMarkdown (a resumed task keeps its parse)', () => {
  it('reads back what renderTaskMarkdown wrote', () => {
    const task: StructuredTask = {
      type: 'mutation',
      title: 'Refine the landing page',
      requirements: [
        { marker: 'MODIFY', description: 'Refine ad copy in hero and CTA sections', count: null },
        { marker: 'ADD', description: 'New nighttime drink flavors (add to existing 8)', count: 2 },
        { marker: 'ADD', description: '2 nighttime flavors', count: 2 },
      ],
      scope: {
        preserve: ['All 8 existing flavors unchanged', 'Navigation and routing'],
        affectedFiles: ['HeroSection.tsx', 'FlavorGrid.tsx'],
      },
      clarification: null,
    }
    const md = renderTaskMarkdown(task, {
      taskNumber: 3,
      previousTag: 'task-2-post',
      rawMessage: 'refine!\n- [ADD] not a requirement\n',
      fallback: false,
    })
    expect(structuredFromTaskMarkdown(md, run())).toEqual(task)
  })

  it('is null for a task that was never parsed, and empty for the fallback template', () => {
    expect(structuredFromTaskMarkdown('', run({ type: null }))).toBeNull()
    const md = renderTaskMarkdown(
      {
        type: 'fresh',
        title: 'x',
        requirements: [],
        scope: { preserve: [], affectedFiles: [] },
        clarification: null,
      },
      { taskNumber: 1, previousTag: null, rawMessage: 'build a page', fallback: true },
    )
    expect(structuredFromTaskMarkdown(md, run({ type: 'fresh', title: 'Build a page' }))).toEqual({
      type: 'fresh',
      title: 'Build a page',
      requirements: [],
      scope: { preserve: [], affectedFiles: [] },
      clarification: null,
    })
  })
})
