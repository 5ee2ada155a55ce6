import { fireEvent, renderHook } from '@testing-library/react'
import { beforeEach, describe, expect, it } from 'vitest'
import { useProjectUi } from './projectUi'
import { useProjectsUi } from '../features/projects/projectsUi'
import { shortcutLabel, useShortcuts } from './shortcuts'

const press = (key: string, mods: KeyboardEventInit = { ctrlKey: true }) => {
  const event = new KeyboardEvent('keydown', { key, bubbles: true, cancelable: true, ...mods })
  fireEvent(document.body, event)
  return event
}

describe('app shortcuts', () => {
  beforeEach(() => {
    window.location.hash = '#/projects'
    useProjectUi.setState({ sidePanelCollapsed: false })
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
