import { act, screen, waitFor } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { describe, expect, it, vi } from 'vitest'
import type { AppInfo } from '../../../shared/api/core'
import { appInfo } from '../test/fixtures'
import { renderWithProviders } from '../test/render'
import { BASELINE_SHOW_AFTER_MS } from '../features/timeline/BaselineStatus'
import { StatusBar } from './StatusBar'

const info = (sandbox: AppInfo['sandbox']) => () => appInfo({ sandbox })
const provider = () => ({ effective: null })

const project = () => ({
  id: 4,
  name: 'bakery',
  path: '/p/bakery',
  createdAt: 1,
  lastOpenedAt: 1,
  state: null,
})

/** The status bar on project 4 with no baseline running, once it has asked whether one runs. */
async function renderIdleProject() {
  const view = renderWithProviders(<StatusBar route={{ page: 'project', projectId: 4 }} />, {
    'app.info': info({ kind: 'bubblewrap', reason: null }),
    'settings.getProvider': provider,
    'projects.get': project,
    'snapshots.baselineState': () => null,
  })
  await screen.findByText('bakery')
  await waitFor(() => expect(view.calls.some((c) => c.name === 'snapshots.baselineState')).toBe(true))
  return view
}

describe('StatusBar', () => {
  it('says plainly when the model’s commands are not sandboxed, and why', async () => {
    renderWithProviders(<StatusBar route={{ page: 'projects' }} />, {
      'app.info': info({ kind: 'none', reason: 'bubblewrap (bwrap) is not installed' }),
      'settings.getProvider': provider,
    })
    expect(await screen.findByText('Commands not sandboxed')).toBeTruthy()
  })

  it('names the sandbox in use', async () => {
    renderWithProviders(<StatusBar route={{ page: 'projects' }} />, {
      'app.info': info({ kind: 'bubblewrap', reason: null }),
      'settings.getProvider': provider,
    })
    expect(await screen.findByText('Sandboxed (bubblewrap)')).toBeTruthy()
    expect(screen.queryByText('Commands not sandboxed')).toBeNull()
  })

  it('explains its terms on hover, and gives no command to type', async () => {
    const user = userEvent.setup()
    renderWithProviders(<StatusBar route={{ page: 'projects' }} />, {
      'app.info': info({ kind: 'none', reason: 'bubblewrap (bwrap) is not installed' }),
      'settings.getProvider': provider,
    })
    const sandbox = await screen.findByText('Commands not sandboxed')
    await user.hover(sandbox)
    const [hint] = await screen.findAllByText(/allowed running them without one/)
    expect(hint!.textContent).not.toMatch(/ralph /)
  })

  it('says where to choose a provider, on hover', async () => {
    const user = userEvent.setup()
    renderWithProviders(<StatusBar route={{ page: 'projects' }} />, {
      'app.info': info({ kind: 'bubblewrap', reason: null }),
      'settings.getProvider': provider,
    })
    await user.hover(await screen.findByText('No LLM provider configured'))
    expect((await screen.findAllByText(/Choose a provider in Settings/)).length).toBeGreaterThan(0)
  })
})

describe('StatusBar: focus', () => {
  it('takes no tab stop for information; what needs acting on is read with the item', async () => {
    const user = userEvent.setup()
    renderWithProviders(
      <>
        <button>Before</button>
        <StatusBar route={{ page: 'project', projectId: 4 }} />
        <button>After</button>
      </>,
      {
        'app.info': info({ kind: 'none', reason: 'bubblewrap (bwrap) is not installed' }),
        'settings.getProvider': provider,
        'projects.get': project,
        'snapshots.baselineState': () => null,
      },
    )
    await screen.findByText('bakery')
    await screen.findByText('Commands not sandboxed')
    const bar = screen.getByRole('contentinfo', { name: 'Status bar' })
    expect(bar.querySelectorAll('[tabindex]')).toHaveLength(0)
    screen.getByRole('button', { name: 'Before' }).focus()
    await user.tab()
    expect(screen.getByRole('button', { name: 'After' })).toHaveFocus()
    // The warnings' explanations are part of their text for a screen reader, not behind a hover.
    expect(screen.getByTestId('status-sandbox')).toHaveTextContent(
      "Commands not sandboxed: bubblewrap (bwrap) is not installed. The model's commands run only in projects",
    )
    expect(screen.getByTestId('status-provider')).toHaveTextContent(
      'No LLM provider configured: No model to run tasks with yet. Choose a provider in Settings.',
    )
  })
})

describe('StatusBar: the background baseline snapshot', () => {
  it('shows files read of the estimated total as the events arrive, and Cancel stops it', async () => {
    let running: unknown = { phase: 'listing', done: 0, total: null }
    const view = renderWithProviders(<StatusBar route={{ page: 'project', projectId: 4 }} />, {
      'app.info': info({ kind: 'bubblewrap', reason: null }),
      'settings.getProvider': provider,
      'projects.get': project,
      'snapshots.baselineState': () => running,
      'snapshots.cancelBaseline': () => {
        running = null
        return { cancelled: true }
      },
    })
    // Shown once it has run for a moment (a small project's baseline is over before that).
    expect(await screen.findByText('Baseline snapshot: listing files…', {}, { timeout: 5000 })).toBeTruthy()
    act(() =>
      view.emit('snapshot.baselineProgress', {
        projectId: 4,
        progress: { phase: 'reading', done: 4000, total: 10_000 },
      }),
    )
    expect(await screen.findByText('Baseline snapshot: 4,000 of 10,000 files')).toBeTruthy()
    expect(screen.getByRole('progressbar', { name: 'Baseline snapshot progress' })).toHaveAttribute(
      'value',
      '40',
    )
    // Another project's baseline is not this one's.
    act(() =>
      view.emit('snapshot.baselineProgress', {
        projectId: 5,
        progress: { phase: 'reading', done: 1, total: 2 },
      }),
    )
    expect(screen.getByText('Baseline snapshot: 4,000 of 10,000 files')).toBeTruthy()

    await userEvent.click(screen.getByRole('button', { name: 'Cancel' }))
    expect(view.calls.find((c) => c.name === 'snapshots.cancelBaseline')?.input).toEqual({ projectId: 4 })
    act(() =>
      view.emit('snapshot.baselineFinished', { projectId: 4, outcome: 'cancelled', tag: null, message: 'x' }),
    )
    await waitFor(() => expect(screen.queryByTestId('status-baseline')).toBeNull())
  })

  it('does not flash for a baseline that finishes within its first moment, and shows one that runs on', async () => {
    const view = await renderIdleProject()
    vi.useFakeTimers()
    try {
      // Async acts: the query cache tells its observers in a microtask, which a synchronous act never reaches.
      const progress = (done: number) =>
        act(async () =>
          view.emit('snapshot.baselineProgress', {
            projectId: 4,
            progress: { phase: 'reading', done, total: 12 },
          }),
        )
      const advance = (ms: number) => act(() => vi.advanceTimersByTimeAsync(ms))
      // A small project's baseline: over before the status bar would show it.
      await progress(0)
      await advance(BASELINE_SHOW_AFTER_MS - 50)
      expect(screen.queryByTestId('status-baseline')).toBeNull()
      await act(async () =>
        view.emit('snapshot.baselineFinished', {
          projectId: 4,
          outcome: 'saved',
          tag: 'baseline-1',
          message: 'Saved baseline-1',
        }),
      )
      await advance(BASELINE_SHOW_AFTER_MS * 2)
      expect(screen.queryByTestId('status-baseline')).toBeNull()
      // One that runs on shows once its moment has passed.
      await progress(3)
      await advance(BASELINE_SHOW_AFTER_MS - 50)
      expect(screen.queryByTestId('status-baseline')).toBeNull()
      await advance(100)
      expect(screen.getByTestId('status-baseline')).toHaveTextContent('Baseline snapshot: 3 of 12 files')
    } finally {
      vi.useRealTimers()
    }
  })

  it('shows nothing when no baseline runs', async () => {
    await renderIdleProject()
    expect(screen.queryByTestId('status-baseline')).toBeNull()
  })
})
