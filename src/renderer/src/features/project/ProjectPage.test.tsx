import { act, screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { beforeEach, describe, expect, it } from 'vitest'
import { App } from '../../app/App'
import { appInfo, chatHandlers, projectDetail } from '../../test/fixtures'
import { card, message } from '../chat/testData'
import { emptyQueue } from '../queue/testData'
import { renderInViewport, sentInput } from '../../test/render'
import { useProjectUi } from '../../app/projectUi'
import { useRuns } from '../../app/runStore'
import { useSideDrawer } from './sideDrawer'

function renderProject(hash = '#/project/1', handlers: Record<string, (input: unknown) => unknown> = {}) {
  window.location.hash = hash
  let detail = projectDetail()
  let stored: unknown[] = []
  const view = renderInViewport(<App />, {
    ...chatHandlers(() => stored),
    'app.info': () => appInfo(),
    'projects.list': () => [detail],
    'projects.get': () => detail,
    'snapshots.list': () => ({ items: [], total: 0 }),
    'snapshots.status': () => ({
      position: null,
      latest: null,
      dirty: false,
      changes: { added: 0, modified: 0, deleted: 0 },
      trackedFiles: 0,
      snapshotCount: 0,
      lastSnapshotAt: null,
      repairs: [],
    }),
    'tasks.running': () => ({ running: false }),
    // A model is configured: the composer sends (with none it says "Choose a model first").
    'settings.getProvider': () => ({
      settings: null,
      effective: { provider: 'anthropic', model: 'claude-sonnet-4-5', baseUrl: null },
      overriddenByEnv: [],
      apiKey: { present: false, backend: 'none', hint: null, envVar: null },
    }),
    'chat.send': () => ({ conversationId: 1, messageId: 1 }),
    ...handlers,
  })
  return {
    ...view,
    setDetail: (d: typeof detail) => (detail = d),
    setStored: (messages: unknown[]) => (stored = messages),
  }
}

/** happy-dom's window is 1024 px wide, a drawer window (sideDrawer.ts): most checks want the side-by-side one. */
const setWindowWidth = (width: number) =>
  (
    window as unknown as { happyDOM: { setViewport(v: { width: number; height: number }): void } }
  ).happyDOM.setViewport({ width, height: 800 })

describe('project screen', () => {
  beforeEach(() => {
    setWindowWidth(1280)
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
    // The timeline loads its snapshots: an empty project says so.
    expect(
      await within(screen.getByRole('tabpanel', { name: 'Timeline' })).findByText(/No snapshots yet/),
    ).toBeTruthy()
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
    renderProject('#/project/1?panel=queue', {
      'queue.state': () => emptyQueue(),
      'queue.notifications': () => ({ items: [], total: 0 }),
    })
    expect(await screen.findByRole('tab', { name: 'Queue' })).toHaveAttribute('aria-selected', 'true')
    const panel = screen.getByRole('tabpanel', { name: 'Queue' })
    expect(await within(panel).findByText('The work queue is empty')).toBeInTheDocument()
    expect(within(panel).getByRole('status', { name: 'Stage' })).toHaveTextContent('PLAN')
  })

  it('opens with the keyboard in the message box', async () => {
    renderProject()
    expect(await screen.findByRole('textbox', { name: 'Message' })).toHaveFocus()
  })

  it('folds the side panel away and back', async () => {
    renderProject()
    await userEvent.click(await screen.findByRole('button', { name: 'Hide side panel' }))
    expect(screen.queryByRole('tablist', { name: 'Side panel' })).toBeNull()
    expect(useProjectUi.getState().sidePanelCollapsed).toBe(true)
    await userEvent.click(screen.getByRole('button', { name: 'Show side panel' }))
    expect(await screen.findByRole('tablist', { name: 'Side panel' })).toBeInTheDocument()
  })

  it('runs a task from the chat: the card comes from the history and its text streams live', async () => {
    const view = renderProject()
    await userEvent.type(await screen.findByRole('textbox', { name: 'Message' }), 'greet the world')
    await userEvent.click(screen.getByRole('button', { name: 'Send' }))
    expect(sentInput(view, 'chat.send')).toEqual({
      projectId: 1,
      mode: 'task',
      text: 'greet the world',
    })
    expect(await screen.findByRole('button', { name: 'Stop' })).toBeInTheDocument()

    view.setStored([
      message({
        id: 2,
        kind: 'task',
        mode: null,
        text: '',
        card: card({ status: 'running', title: 'Greet', outcome: null }),
      }),
      message({ id: 1, text: 'greet the world' }),
    ])
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
    const log = screen.getByRole('log', { name: 'Conversation' })
    const running = await within(log).findByRole('article', { name: 'Task 1: Greet' })
    expect(running).toHaveTextContent('Running')
    expect(within(running).getByTestId('task-live')).toHaveTextContent('Thinking about it')
    expect(screen.getByRole('contentinfo', { name: 'Status bar' })).toHaveTextContent('Task 1 running')

    view.setDetail(projectDetail({ state: { ...projectDetail().state, status: 'complete', taskCount: 1 } }))
    view.setStored([
      message({ id: 2, kind: 'task', mode: null, text: '', card: card({ title: 'Greet' }) }),
      message({ id: 1, text: 'greet the world' }),
    ])
    act(() => view.emit('loop.finished', { projectId: 1, task: 1, status: 'complete', message: 'done' }))
    await waitFor(() =>
      expect(within(log).getByRole('article', { name: 'Task 1: Greet' })).toHaveTextContent('Complete'),
    )
    await waitFor(() => expect(screen.getByTestId('project-status')).toHaveTextContent('Last task complete'))
    expect(screen.queryByRole('button', { name: 'Stop' })).toBeNull()
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

describe('project screen in a small window (the side panel is a drawer)', () => {
  beforeEach(() => {
    setWindowWidth(1024)
    useProjectUi.setState({ sidePanelCollapsed: false })
    useSideDrawer.setState({ open: false, takeFocus: false })
  })

  it('starts with the chat alone; the header’s button and Esc open and close the drawer, focus following', async () => {
    renderProject()
    const box = await screen.findByRole('textbox', { name: 'Message' })
    expect(box).toHaveFocus()
    expect(screen.queryByRole('tablist', { name: 'Side panel' })).toBeNull()
    const show = screen.getByRole('button', { name: 'Show side panel' })
    expect(show).toHaveAttribute('aria-expanded', 'false')
    await userEvent.click(show)
    // Opened from the button: focus goes into the drawer, to its open tab.
    const timeline = await screen.findByRole('tab', { name: 'Timeline' })
    await waitFor(() => expect(timeline).toHaveFocus())
    expect(screen.getByRole('button', { name: 'Hide side panel' })).toHaveAttribute('aria-expanded', 'true')
    // The split's remembered state is not the drawer's.
    expect(useProjectUi.getState().sidePanelCollapsed).toBe(false)
    await userEvent.keyboard('{Escape}')
    await waitFor(() => expect(screen.queryByRole('tablist', { name: 'Side panel' })).toBeNull())
    await waitFor(() => expect(screen.getByRole('button', { name: 'Show side panel' })).toHaveFocus())
  })

  it('opens on the tab an address names, and forgets the tab when it closes', async () => {
    renderProject('#/project/1?panel=plan')
    expect(await screen.findByRole('tab', { name: 'Plan' })).toHaveAttribute('aria-selected', 'true')
    await userEvent.click(screen.getByRole('button', { name: 'Close side panel' }))
    await waitFor(() => expect(window.location.hash).toBe('#/project/1'))
    expect(screen.queryByRole('tablist', { name: 'Side panel' })).toBeNull()
  })
})
