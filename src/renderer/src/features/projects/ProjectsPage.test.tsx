import { act, screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { describe, expect, it } from 'vitest'
import type { Output } from '../../../../shared/api/contract'
import { App } from '../../app/App'
import { appInfo, projectDetail } from '../../test/fixtures'
import { renderWithProviders } from '../../test/render'

function renderProjects() {
  window.location.hash = '#/projects'
  const projects = [projectDetail({ id: 1, name: 'first' })]
  const activity: Output<'tasks.activity'> = [
    {
      projectId: 1,
      status: 'waiting',
      lastTask: { task: 3, title: 'Night drinks', at: Date.now() - 120_000 },
    },
  ]
  const view = renderWithProviders(<App />, {
    'app.info': () => appInfo(),
    'projects.list': () => [...projects],
    'projects.open': (input) => {
      const { path } = input as { path: string }
      if (!path.startsWith('/')) throw new Error(`No folder exists at ${path}`)
      const project = projectDetail({ id: 2, name: path.split('/').pop()!, path })
      projects.unshift(project)
      return project
    },
    'projects.get': () => projects[0],
    'tasks.running': () => ({ running: false }),
    'tasks.activity': () => structuredClone(activity),
    'settings.getProvider': () => ({
      settings: null,
      effective: null,
      overriddenByEnv: [],
      apiKey: { present: false, backend: 'none', hint: null, envVar: null },
    }),
  })
  return { ...view, projects, activity }
}

describe('projects screen', () => {
  it('opens a folder once when Open is double-clicked', async () => {
    const user = userEvent.setup()
    const view = renderProjects()
    // The core takes its time: the second click lands while the first open runs.
    const opened = view.handlers['projects.open']!
    let release: () => void = () => {}
    const gate = new Promise<void>((resolve) => (release = resolve))
    view.handlers['projects.open'] = async (input) => {
      await gate
      return opened(input)
    }
    await user.type(await screen.findByLabelText('Folder path'), '/work/bakery')
    await user.dblClick(screen.getByRole('button', { name: 'Open' }))
    expect(screen.getByRole('button', { name: 'Opening…' })).toBeDisabled()
    release()
    await waitFor(() => expect(window.location.hash).toBe('#/project/2'))
    expect(view.calls.filter((c) => c.name === 'projects.open')).toHaveLength(1)
  })

  it('lists recent projects as links to them', async () => {
    renderProjects()
    const list = await screen.findByRole('list', { name: 'Recent projects' })
    expect(list).toHaveTextContent('first')
    expect(screen.getAllByRole('link', { name: /first/ })[0]).toHaveAttribute('href', '#/project/1')
  })

  it('shows each project’s status dot and last task, and follows the loop', async () => {
    const view = renderProjects()
    const list = await screen.findByRole('list', { name: 'Recent projects' })
    expect(await within(list).findByRole('img', { name: 'Waiting for your answer' })).toBeInTheDocument()
    expect(list).toHaveTextContent('Task 3: Night drinks · Waiting for your answer')
    expect(list).toHaveTextContent('2 min ago')
    view.activity[0] = { projectId: 1, status: 'running', lastTask: { task: 4, title: null, at: Date.now() } }
    act(() =>
      view.emit('loop.event', {
        projectId: 1,
        event: { type: 'task.started', task: 4, message: 'go', continued: false },
      }),
    )
    expect(await within(list).findByRole('img', { name: 'Running' })).toBeInTheDocument()
    expect(list).toHaveTextContent('Task 4 · Running')
  })

  it('shows why a folder cannot be opened, and clears it on edit', async () => {
    renderProjects()
    const field = await screen.findByRole('textbox', { name: 'Folder path' })
    await userEvent.type(field, 'nowhere')
    await userEvent.click(screen.getByRole('button', { name: 'Open' }))
    expect(await screen.findByRole('alert')).toHaveTextContent('No folder exists at nowhere')
    expect(field).toHaveAttribute('aria-invalid', 'true')
    await userEvent.type(field, 'x')
    expect(screen.queryByRole('alert')).toBeNull()
  })

  it('opens a folder and goes to its project; the list updates when the core says projects changed', async () => {
    const view = renderProjects()
    await userEvent.type(await screen.findByRole('textbox', { name: 'Folder path' }), '/work/new-app')
    await userEvent.click(screen.getByRole('button', { name: 'Open' }))
    await waitFor(() => expect(window.location.hash).toBe('#/project/2'))
    expect(await screen.findByTestId('project-name')).toHaveTextContent('new-app')

    // Another client opens a project: the sidebar follows the event.
    view.projects.unshift(projectDetail({ id: 3, name: 'elsewhere' }))
    act(() => view.emit('projects.changed', { projectId: 3 }))
    const nav = screen.getByRole('navigation', { name: 'Main' })
    await waitFor(() => expect(nav).toHaveTextContent('elsewhere'))
  })

  it('Ctrl+O from another screen lands on the path field', async () => {
    renderProjects()
    window.location.hash = '#/settings'
    await screen.findByRole('heading', { name: 'Settings' })
    await userEvent.keyboard('{Control>}o{/Control}')
    await waitFor(() => expect(screen.getByRole('textbox', { name: 'Folder path' })).toHaveFocus())
  })
})
