import { screen, waitFor } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { describe, expect, it } from 'vitest'
import { AppError } from '../../../../shared/errors'
import { App } from '../../app/App'
import { appInfo, projectDetail } from '../../test/fixtures'
import { renderWithProviders } from '../../test/render'

/** The core's answer for a home-like folder, until the call says the user confirmed it. */
function renderOpen() {
  window.location.hash = '#/projects'
  const opened: unknown[] = []
  const view = renderWithProviders(<App />, {
    'app.info': () => appInfo(),
    'projects.list': () => [],
    'projects.open': (input) => {
      opened.push(input)
      const { path, confirmHomeLike } = input as { path: string; confirmHomeLike?: boolean }
      if (!confirmHomeLike) {
        throw new AppError('invalid-input', `${path} looks like a home folder (it has .ssh, .bashrc).`, {
          needsConfirmation: 'home-like',
          path,
          signs: ['.ssh', '.bashrc'],
        })
      }
      return projectDetail({ id: 7, name: 'me', path })
    },
    'projects.get': () => projectDetail({ id: 7, name: 'me', path: '/srv/me' }),
    'tasks.running': () => ({ running: false }),
    'tasks.activity': () => [],
  })
  return { ...view, opened }
}

describe('opening a folder that looks like a home folder', () => {
  it('asks first, names what it found, and opens only after "Open anyway"', async () => {
    const user = userEvent.setup()
    const view = renderOpen()
    await user.type(await screen.findByRole('textbox', { name: 'Folder path' }), '/srv/me')
    await user.click(screen.getByRole('button', { name: 'Open' }))
    const dialog = await screen.findByRole('alertdialog', {
      name: 'Open a folder that looks like a home folder?',
    })
    expect(dialog).toHaveTextContent('/srv/me has .ssh, .bashrc, like a home folder')
    expect(dialog).toHaveTextContent('credential stores (.ssh, .aws …) and .env files, which stay hidden')
    // Cancel is where focus starts: nothing is opened by accident.
    expect(screen.getByRole('button', { name: 'Cancel' })).toHaveFocus()
    await user.click(screen.getByRole('button', { name: 'Open anyway' }))
    await waitFor(() =>
      expect(view.opened).toEqual([{ path: '/srv/me' }, { path: '/srv/me', confirmHomeLike: true }]),
    )
    await waitFor(() => expect(window.location.hash).toBe('#/project/7'))
  })

  it('Cancel opens nothing and shows no error', async () => {
    const user = userEvent.setup()
    const view = renderOpen()
    await user.type(await screen.findByRole('textbox', { name: 'Folder path' }), '/srv/me')
    await user.click(screen.getByRole('button', { name: 'Open' }))
    await screen.findByRole('alertdialog')
    await user.click(screen.getByRole('button', { name: 'Cancel' }))
    await waitFor(() => expect(screen.queryByRole('alertdialog')).not.toBeInTheDocument())
    expect(view.opened).toHaveLength(1)
    expect(screen.queryByRole('alert')).not.toBeInTheDocument()
  })
})
