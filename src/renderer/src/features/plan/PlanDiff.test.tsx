import { act, renderHook, screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { beforeEach, describe, expect, it } from 'vitest'
import type { PlanCompare, PlanFile } from '../../../../shared/api/plan'
import { createClient } from '../../api'
import { ClientProvider } from '../../app/ClientProvider'
import { createFakeTransport } from '../../test/fakeTransport'
import { renderWithProviders } from '../../test/render'
import { PlanDiff } from './PlanDiff'
import { usePlanUi } from './planUi'
import { ANALYZE_DEBOUNCE_MS, useAnalysis } from './useAnalysis'
import { usePlanBuffer } from './usePlanBuffer'

// The diff review's controls and the editor's buffer and validation logic, without Monaco (see PlanParts.test.tsx).

const compare = (input: { from?: string; to?: string }): PlanCompare => ({
  from: input.from ?? 'task-2-pre',
  to: input.to ?? 'task-2-post',
  task: 2,
  fromText: 'a',
  toText: 'b',
  diff: {
    nodes: [],
    counts: { added: 0, removed: 0, renamed: 0, moved: 0, changed: 0, markersAdded: 0, markersRemoved: 0 },
    identical: true,
  },
  implementation: [],
  summary: '',
})
const snapshot = (tag: string) => ({ tag, kind: 'task-pre', task: 2, createdAt: 0, message: '' })

describe('PlanDiff', () => {
  beforeEach(() => usePlanUi.setState({ view: 'diff', range: null, diffMode: 'structure' }))

  const setup = () =>
    renderWithProviders(<PlanDiff projectId={1} />, {
      'snapshots.list': () => ({
        items: ['task-2-post', 'task-2-pre', 'task-1-post', 'task-1-pre'].map(snapshot),
        total: 4,
      }),
      'plan.compare': (input) => compare(input as { from?: string; to?: string }),
    })

  it('starts on the core’s default (the last task’s pre → post), with every tag and "Working copy" to choose', async () => {
    const { calls } = setup()
    const from = screen.getByRole('combobox', { name: 'From' })
    await waitFor(() => expect(from).toHaveValue('task-2-pre'))
    expect(screen.getByRole('combobox', { name: 'To' })).toHaveValue('task-2-post')
    expect(
      within(from)
        .getAllByRole('option')
        .map((o) => o.textContent),
    ).toEqual(['Working copy', 'task-2-post', 'task-2-pre', 'task-1-post', 'task-1-pre'])
    expect(calls.find((c) => c.name === 'plan.compare')?.input).toEqual({ projectId: 1 })
    expect(screen.getByRole('list', { name: 'Section changes' })).toBeInTheDocument()
  })

  it('compares what is chosen: any tag against the working copy', async () => {
    const { calls } = setup()
    const to = screen.getByRole('combobox', { name: 'To' })
    await waitFor(() => expect(to).toHaveValue('task-2-post'))
    await userEvent.selectOptions(to, 'Working copy')
    await waitFor(() => expect(to).toHaveValue('working'))
    expect(calls.filter((c) => c.name === 'plan.compare').at(-1)?.input).toEqual({
      projectId: 1,
      from: 'task-2-pre',
      to: 'working',
    })
  })

  it('compares a task without a post-task snapshot with the working copy', async () => {
    usePlanUi.getState().openTaskDiff(3, true)
    const { calls } = setup()
    await waitFor(() => expect(screen.getByRole('combobox', { name: 'To' })).toHaveValue('working'))
    expect(calls.find((c) => c.name === 'plan.compare')?.input).toEqual({
      projectId: 1,
      from: 'task-3-pre',
      to: 'working',
    })
  })
})

const file = (text: string, version: string): PlanFile => ({
  path: '/p/.ralph/plan.tsx',
  exists: true,
  text,
  version,
  taskRunning: false,
  taskNumber: 2,
})

describe('the plan buffer', () => {
  it('follows the file while clean; under unsaved edits a new version is a conflict to settle', () => {
    const { result, rerender } = renderHook(({ disk }) => usePlanBuffer(7, disk), {
      initialProps: { disk: file('one', 'v1') },
    })
    expect(result.current).toMatchObject({ text: 'one', dirty: false, conflict: false })
    rerender({ disk: file('two', 'v2') })
    expect(result.current).toMatchObject({ text: 'two', dirty: false, conflict: false })

    act(() => result.current.edit('mine'))
    rerender({ disk: file('three', 'v3') })
    expect(result.current).toMatchObject({ text: 'mine', dirty: true, conflict: true })
    act(() => result.current.keepMine())
    expect(result.current).toMatchObject({
      text: 'mine',
      dirty: true,
      conflict: false,
      base: { version: 'v3' },
    })

    rerender({ disk: file('four', 'v4') })
    expect(result.current.conflict).toBe(true)
    act(() => result.current.reload())
    expect(result.current).toMatchObject({ text: 'four', dirty: false, conflict: false })
  })
})

describe('validation as you type', () => {
  it('analyses once typing pauses and aborts the request a newer buffer makes stale', async () => {
    const fake = createFakeTransport({
      'plan.analyze': (input) =>
        new Promise((resolve) =>
          setTimeout(
            () =>
              resolve({
                valid: true,
                taskNumber: 2,
                findings: [],
                markers: [],
                outline: [{ name: (input as { text: string }).text, line: 1, markers: [], sections: [] }],
              }),
            ANALYZE_DEBOUNCE_MS,
          ),
        ),
    })
    const client = createClient(fake.transport)
    const { result, rerender } = renderHook(({ text }) => useAnalysis(1, text, 'v1'), {
      initialProps: { text: 'a' },
      wrapper: ({ children }) => <ClientProvider client={client}>{children}</ClientProvider>,
    })
    // Opened from disk: analysed at once.
    await waitFor(() => expect(fake.calls).toHaveLength(1))
    rerender({ text: 'ab' })
    rerender({ text: 'abc' })
    // The first request is still in flight when the buffer changes: its signal is aborted.
    expect(fake.calls[0]!.signal?.aborted).toBe(true)
    await waitFor(() => expect(result.current.result?.outline[0]?.name).toBe('abc'), { timeout: 5_000 })
    // "ab" never reached the core: typing had not paused.
    expect(fake.calls.map((c) => (c.input as { text: string }).text)).toEqual(['a', 'abc'])
    expect(result.current.pending).toBe(false)
  })
})
