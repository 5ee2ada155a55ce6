import { act, fireEvent, render, renderHook, screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { useState } from 'react'
import { beforeEach, describe, expect, it } from 'vitest'
import { useProjectUi } from './projectUi'
import { useProjectsUi } from '../features/projects/projectsUi'
import { useSideDrawer } from '../features/project/sideDrawer'
import { Dialog, DialogContent, TooltipProvider } from '../ui'
import { useReturnFocus } from './focusOnRoute'
import { ShortcutSheet } from './ShortcutSheet'
import { isSheetKey, shortcuts, shortcutSheet, shortcutLabel, useShortcuts } from './shortcuts'
import { useRoute } from './useRoute'

const setWindowWidth = (width: number) =>
  (
    window as unknown as { happyDOM: { setViewport(v: { width: number; height: number }): void } }
  ).happyDOM.setViewport({ width, height: 800 })

const press = (key: string, mods: KeyboardEventInit = { ctrlKey: true }) => {
  const event = new KeyboardEvent('keydown', { key, bubbles: true, cancelable: true, ...mods })
  fireEvent(document.body, event)
  return event
}

describe('app shortcuts', () => {
  beforeEach(() => {
    setWindowWidth(1280)
    window.location.hash = '#/projects'
    useProjectUi.setState({ sidePanelCollapsed: false })
    useSideDrawer.setState({ open: false, takeFocus: false })
    useProjectsUi.setState({ openFolderRequested: false })
    renderHook(() => useShortcuts())
  })

  it('Ctrl+, opens Settings and Ctrl+1 the project list, taking the key from the browser', () => {
    const event = press(',')
    expect(window.location.hash).toBe('#/settings')
    expect(event.defaultPrevented).toBe(true)
    press('1')
    expect(window.location.hash).toBe('#/projects')
  })

  it('⌘ works like Ctrl', () => {
    press(',', { metaKey: true })
    expect(window.location.hash).toBe('#/settings')
  })

  it('Ctrl+O goes to the project list and asks it for a folder', () => {
    window.location.hash = '#/settings'
    press('o')
    expect(window.location.hash).toBe('#/projects')
    expect(useProjectsUi.getState().takeOpenFolderRequest()).toBe(true)
    expect(useProjectsUi.getState().takeOpenFolderRequest()).toBe(false)
  })

  it('Ctrl+B folds the side panel on a project, and does nothing elsewhere', () => {
    press('b')
    expect(useProjectUi.getState().sidePanelCollapsed).toBe(false)
    window.location.hash = '#/project/2?panel=plan'
    press('b')
    expect(useProjectUi.getState().sidePanelCollapsed).toBe(true)
    expect(localStorage.getItem('ralph.sidePanel.collapsed')).toBe('1')
    press('B')
    expect(useProjectUi.getState().sidePanelCollapsed).toBe(false)
  })

  it('Ctrl+B in a small window opens and closes the drawer, leaving the remembered split alone', () => {
    setWindowWidth(1024)
    window.location.hash = '#/project/2'
    press('b')
    expect(useSideDrawer.getState()).toMatchObject({ open: true, takeFocus: true })
    press('b')
    expect(useSideDrawer.getState().open).toBe(false)
    expect(useProjectUi.getState().sidePanelCollapsed).toBe(false)
  })

  it('leaves other keys and modifier combinations alone', () => {
    window.location.hash = '#/project/2'
    for (const [key, mods] of [
      [',', {}],
      [',', { ctrlKey: true, altKey: true }],
      [',', { ctrlKey: true, shiftKey: true }],
      ['k', { ctrlKey: true }],
    ] as const) {
      const event = press(key, mods)
      expect(event.defaultPrevented, `${key} ${JSON.stringify(mods)}`).toBe(false)
    }
    expect(window.location.hash).toBe('#/project/2')
  })

  it('labels shortcuts for this platform', () => {
    expect(shortcutLabel('o')).toMatch(/^(Ctrl\+|⌘)O$/)
    expect(shortcutLabel('Enter')).toMatch(/^(Ctrl\+|⌘)Enter$/)
  })
})

/** A page with a focusable button per route, and the app's route-focus hook: what the app does, minus its pages. */
function RoutedPage() {
  const route = useRoute()
  useReturnFocus(route)
  const [n] = useState(0)
  return route.page === 'project' ? (
    <article aria-label="Task 1: Greet">
      <button key={n}>Roll back to before this task</button>
      <textarea aria-label="Message" />
    </article>
  ) : (
    <h1>Settings</h1>
  )
}

describe('Ctrl+, and back', () => {
  beforeEach(() => {
    window.location.hash = '#/project/2'
    renderHook(() => useShortcuts())
  })

  it('gives focus back to the control that had it when Settings is left (Ctrl+, again)', async () => {
    render(<RoutedPage />)
    const opener = screen.getByRole('button', { name: 'Roll back to before this task' })
    act(() => opener.focus())
    press(',')
    await screen.findByRole('heading', { name: 'Settings' })
    expect(window.location.hash).toBe('#/settings')
    press(',')
    // The project page is drawn anew: its successor (same name, same card) gets focus.
    const again = await screen.findByRole('button', { name: 'Roll back to before this task' })
    expect(again).not.toBe(opener)
    await waitFor(() => expect(again).toHaveFocus())
    expect(window.location.hash).toBe('#/project/2')
  })
})

describe('the "?" sheet', () => {
  beforeEach(() => {
    document.body.innerHTML = ''
  })

  it("lists every app shortcut and the surfaces' keys, from the one list", () => {
    const rows = shortcutSheet().flatMap((g) => g.keys.map((k) => `${k.keys} ${k.description}`))
    for (const s of shortcuts) expect(rows).toContain(`${shortcutLabel(s.key)} ${s.description}`)
    expect(rows).toContain(`${shortcutLabel('Enter')} Send the message`)
    expect(rows.some((r) => r.startsWith('? '))).toBe(true)
    expect(rows).toContain(`${shortcutLabel('?')} Show these shortcuts (in a text field too)`)
  })

  it('is "?" outside a text field and with no dialog open, never typed text', () => {
    const key = (target: EventTarget, init: KeyboardEventInit = {}) => {
      const event = new KeyboardEvent('keydown', { key: '?', shiftKey: true, bubbles: true, ...init })
      Object.defineProperty(event, 'target', { value: target })
      return isSheetKey(event)
    }
    const button = document.body.appendChild(document.createElement('button'))
    const field = document.body.appendChild(document.createElement('textarea'))
    const check = document.body.appendChild(
      Object.assign(document.createElement('input'), { type: 'checkbox' }),
    )
    expect(key(document.body)).toBe(true)
    expect(key(button)).toBe(true)
    expect(key(check)).toBe(true)
    expect(key(field)).toBe(false)
    // Ctrl+Shift+/ (Ctrl+"?") or ⌘+"?": the sheet from a text field too; with Alt it is something else.
    expect(key(field, { ctrlKey: true })).toBe(true)
    expect(key(document.body, { metaKey: true })).toBe(true)
    expect(key(field, { ctrlKey: true, altKey: true })).toBe(false)
    expect(key(field, { key: '/', ctrlKey: true, shiftKey: false })).toBe(false)
    const dialog = document.body.appendChild(document.createElement('div'))
    dialog.setAttribute('role', 'dialog')
    expect(key(button)).toBe(false)
    expect(key(field, { ctrlKey: true })).toBe(false)
  })

  it('opens on "?", starts on its ✕, and one Esc closes it with focus back on the opener', async () => {
    render(
      <TooltipProvider>
        <button>Compare</button>
        <ShortcutSheet />
      </TooltipProvider>,
    )
    const opener = screen.getByRole('button', { name: 'Compare' })
    act(() => opener.focus())
    await userEvent.keyboard('?')
    const sheet = await screen.findByRole('dialog', { name: 'Keyboard shortcuts' })
    expect(within(sheet).getByRole('list', { name: 'Chat shortcuts' })).toHaveTextContent('Send the message')
    await waitFor(() => expect(within(sheet).getByRole('button', { name: 'Close' })).toHaveFocus())
    await userEvent.keyboard('{Escape}')
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull())
    await waitFor(() => expect(opener).toHaveFocus())
  })
})

describe('a dialog', () => {
  it('opens on its first field, not on the ✕, and one Esc closes it', async () => {
    function Opener() {
      const [open, setOpen] = useState(false)
      return (
        <>
          <button onClick={() => setOpen(true)}>Add task</button>
          <Dialog open={open} onOpenChange={setOpen}>
            <DialogContent title="Add a task">
              <label>
                Name <input />
              </label>
            </DialogContent>
          </Dialog>
        </>
      )
    }
    render(
      <TooltipProvider>
        <Opener />
      </TooltipProvider>,
    )
    await userEvent.click(screen.getByRole('button', { name: 'Add task' }))
    const dialog = await screen.findByRole('dialog', { name: 'Add a task' })
    await waitFor(() => expect(within(dialog).getByRole('textbox', { name: 'Name' })).toHaveFocus())
    await userEvent.keyboard('{Escape}')
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull())
    await waitFor(() => expect(screen.getByRole('button', { name: 'Add task' })).toHaveFocus())
  })
})
