import { act, screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { beforeEach, describe, expect, it } from 'vitest'
import { App } from '../../app/App'
import { projectDetail } from '../../test/fixtures'
import { renderWithProviders } from '../../test/render'
import { useProjectUi } from './projectUi'
import { useRuns } from './runStore'

function renderProject(hash = '#/project/1', handlers: Record<string, (input: unknown) => unknown> = {}) {
  window.location.hash = hash
  let detail = projectDetail()
  const view = renderWithProviders(<App />, {
    'app.info': () => ({
      version: '0.1.0',
      host: 'web',
      nativeFolderPicker: false,
      appDataDir: '/d',
      platform: 'linux',
      sandbox: { kind: 'bubblewrap', reason: null },
    }),
    'projects.list': () => [detail],
    'projects.get': () => detail,
    'tasks.running': () => ({ running: false }),
    'settings.getProvider': () => ({
      settings: null,
      effective: null,
      overriddenByEnv: [],
      apiKey: { present: false, backend: 'none', hint: null, envVar: null },
    }),
    'tasks.start': () => ({ started: true }),
    ...handlers,
  })
  return { ...view, setDetail: (d: typeof detail) => (detail = d) }
}

describe('project screen', () => {
  beforeEach(() => {
    useProjectUi.setState({ sidePanelCollapsed: false })
    useRuns.setState({ runs: {} })
  })

  it('shows the project with the side panel, its tabs named as DESIGN §15 says', async () => {
    renderProject()
    expect(await screen.findByTestId('project-name')).toHaveTextContent('my-app')
    expect(screen.getByTestId('project-status')).toHaveTextContent('Waiting for your first message')
    expect(document.title).toBe('my-app — Ralph Studio')
    const tablist = screen.getByRole('tablist', { name: 'Side panel' })
    const tabs = within(tablist).getAllByRole('tab')
    expect(tabs.map((t) => t.textContent)).toEqual(['Timeline', 'Plan', 'Queue'])
    expect(within(tablist).getByRole('tab', { name: 'Timeline' })).toHaveAttribute('aria-selected', 'true')
    expect(screen.getByRole('tabpanel', { name: 'Timeline' })).toHaveTextContent('No task has run yet')
  })

  it('switches tabs with the arrow keys and keeps the tab in the address, replacing the history entry', async () => {
    renderProject()
    const timeline = await screen.findByRole('tab', { name: 'Timeline' })
    const historyLength = history.length
    act(() => timeline.focus())
    await userEvent.keyboard('{ArrowRight}')
    expect(screen.getByRole('tab', { name: 'Plan' })).toHaveAttribute('aria-selected', 'true')
    expect(screen.getByRole('tab', { name: 'Plan' })).toHaveFocus()
    expect(window.location.hash).toBe('#/project/1?panel=plan')
    expect(screen.getByRole('tabpanel', { name: 'Plan' })).toHaveTextContent('.ralph/plan.tsx')
    await userEvent.keyboard('{End}')
    expect(window.location.hash).toBe('#/project/1?panel=queue')
    await userEvent.keyboard('{ArrowRight}')
    expect(window.location.hash).toBe('#/project/1?panel=timeline')
    expect(history.length).toBe(historyLength)
  })

  it('opens the tab the address names', async () => {
    renderProject('#/project/1?panel=queue')
    expect(await screen.findByRole('tab', { name: 'Queue' })).toHaveAttribute('aria-selected', 'true')
    const panel = screen.getByRole('tabpanel', { name: 'Queue' })
    expect(panel).toHaveTextContent('The work queue will live here')
    // An empty state, not a mock-up: nothing to press.
    expect(within(panel).queryAllByRole('button')).toEqual([])
  })

  it('folds the side panel away and back', async () => {
    renderProject()
    await userEvent.click(await screen.findByRole('button', { name: 'Hide side panel' }))
    expect(screen.queryByRole('tablist', { name: 'Side panel' })).toBeNull()
    expect(useProjectUi.getState().sidePanelCollapsed).toBe(true)
    await userEvent.click(screen.getByRole('button', { name: 'Show side panel' }))
    expect(await screen.findByRole('tablist', { name: 'Side panel' })).toBeInTheDocument()
  })

  it('runs a task and shows the live log from loop events, then refetches the project when it finishes', async () => {
    const view = renderProject()
    await userEvent.type(
      await screen.findByRole('textbox', { name: 'What should Ralph do?' }),
      'greet the world',
    )
    await userEvent.click(screen.getByRole('button', { name: 'Run task' }))
    expect(view.calls.find((c) => c.name === 'tasks.start')?.input).toEqual({
      projectId: 1,
      message: 'greet the world',
    })
    expect(await screen.findByRole('button', { name: 'Running…' })).toBeDisabled()

    act(() => {
      view.emit('loop.event', {
        projectId: 1,
        event: { type: 'task.started', task: 1, message: 'greet', continued: false },
      })
      view.emit('loop.event', {
        projectId: 1,
        event: { type: 'iteration.started', task: 1, iteration: 1, phase: 'build', maxIterations: 5 },
      })
      view.emit('loop.delta', { projectId: 1, task: 1, iteration: 1, text: 'Thinking about it' })
    })
    const log = screen.getByTestId('task-log')
    expect(log).toHaveTextContent('▶ Task 1: greet')
    expect(log).toHaveTextContent('iteration 1/5 [build]')
    expect(log).toHaveTextContent('Thinking about it')
    expect(screen.getByRole('contentinfo', { name: 'Status bar' })).toHaveTextContent('Task 1 running')

    view.setDetail(projectDetail({ state: { ...projectDetail().state, status: 'complete', taskCount: 1 } }))
    const fetched = view.calls.filter((c) => c.name === 'projects.get').length
    act(() => view.emit('loop.finished', { projectId: 1, task: 1, status: 'complete', message: 'done' }))
    expect(screen.getByTestId('task-outcome')).toHaveTextContent('Task complete.')
    await waitFor(() => expect(screen.getByTestId('project-status')).toHaveTextContent('Last task complete'))
    expect(view.calls.filter((c) => c.name === 'projects.get').length).toBeGreaterThan(fetched)
    expect(screen.getByRole('button', { name: 'Run task' })).toBeInTheDocument()
  })

  it('removes the project from the list after a confirmation, and says what stays', async () => {
    const view = renderProject('#/project/1', { 'projects.forget': () => ({ ok: true }) })
    await userEvent.click(await screen.findByRole('button', { name: 'Project actions' }))
    await userEvent.click(await screen.findByRole('menuitem', { name: 'Remove from recent…' }))
    const dialog = await screen.findByRole('alertdialog', { name: 'Remove my-app from recent projects?' })
    expect(within(dialog).getByRole('button', { name: 'Cancel' })).toHaveFocus()
    expect(view.calls.some((c) => c.name === 'projects.forget')).toBe(false)

    await userEvent.click(within(dialog).getByRole('button', { name: 'Remove' }))
    expect(view.calls.find((c) => c.name === 'projects.forget')?.input).toEqual({ projectId: 1 })
    await waitFor(() => expect(window.location.hash).toBe('#/projects'))
    expect(await screen.findByText('Removed my-app from recent projects')).toBeInTheDocument()
  })

  it('says so when the project cannot be loaded', async () => {
    renderProject('#/project/1', {
      'projects.get': () => {
        throw new Error('No project with id 1.')
      },
    })
    expect(await screen.findByRole('alert')).toHaveTextContent('No project with id 1.')
    expect(screen.getByRole('link', { name: 'Back to projects' })).toHaveAttribute('href', '#/projects')
  })
})
