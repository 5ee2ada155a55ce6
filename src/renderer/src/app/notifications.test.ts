import { afterEach, describe, expect, it, vi } from 'vitest'
import { createClient } from '../api'
import { createFakeTransport } from '../test/fakeTransport'
import { projectDetail } from '../test/fixtures'
import { askForNotificationsOnce, startBrowserNotifications, type NotificationApi } from './notifications'

/**
 * happy-dom has no Notification API, so this fake records what the browser would have been asked to show; the
 * web host's Chromium provides the real one.
 */
function fakeNotifications(permission: NotificationPermission) {
  const shown: {
    title: string
    options?: NotificationOptions
    close: () => void
    onclick: (() => void) | null
  }[] = []
  const api = class {
    static permission = permission
    static requestPermission = vi.fn(async () => 'granted' as const)
    onclick: (() => void) | null = null
    constructor(title: string, options?: NotificationOptions) {
      shown.push(Object.assign(this, { title, options, close: vi.fn() }))
    }
  } as unknown as NotificationApi
  return { api, shown }
}

describe('browser notifications', () => {
  afterEach(() => {
    window.location.hash = ''
  })

  it('announces a finished task while the page is not focused, and a click opens its project', async () => {
    const fake = createFakeTransport({ 'projects.get': () => projectDetail({ id: 4, name: 'coffee' }) })
    const { api, shown } = fakeNotifications('granted')
    let focused = true
    startBrowserNotifications(createClient(fake.transport), api, () => focused)

    fake.emit('loop.finished', { projectId: 4, task: 2, status: 'complete', message: 'Added a footer.' })
    focused = false
    fake.emit('loop.finished', { projectId: 4, task: 3, status: 'stopped', message: 'Stopped.' })
    fake.emit('loop.finished', { projectId: 4, task: 4, status: 'needs-clarification', message: 'Which?' })
    await vi.waitFor(() => expect(shown).toHaveLength(1))
    expect(shown[0]).toMatchObject({
      title: 'Task 4 asks a question · coffee',
      options: { body: 'Which?', tag: 'ralph-task-4' },
    })
    shown[0]!.onclick!()
    expect(window.location.hash).toBe('#/project/4')
    expect(shown[0]!.close).toHaveBeenCalled()
  })

  it('shows nothing without permission, and asks for it once, only while undecided', () => {
    const fake = createFakeTransport({ 'projects.get': () => projectDetail() })
    const denied = fakeNotifications('denied')
    startBrowserNotifications(createClient(fake.transport), denied.api, () => false)
    fake.emit('loop.finished', { projectId: 1, task: 1, status: 'failed', message: 'x' })
    expect(fake.calls).toHaveLength(0)
    askForNotificationsOnce(denied.api)
    expect(denied.api.requestPermission).not.toHaveBeenCalled()
    const undecided = fakeNotifications('default')
    askForNotificationsOnce(undecided.api)
    expect(undecided.api.requestPermission).toHaveBeenCalledTimes(1)
  })
})
