import { screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { useState } from 'react'
import { describe, expect, it } from 'vitest'
import type { BridgeResult } from '../../../../shared/api/bridge'
import { renderWithProviders } from '../../test/render'
import { RollbackDialog } from './RollbackDialog'
import { report, snap } from './testData'
import { clockTime } from './undoToast'

/** Holds the open tag as the timeline and the task card do; `closed` counts the dialog's onClose. */
function Harness({ onClosed }: { onClosed(): void }) {
  const [tag, setTag] = useState<string | null>('task-1-pre')
  return (
    <RollbackDialog
      projectId={1}
      tag={tag}
      onClose={() => {
        setTag(null)
        onClosed()
      }}
    />
  )
}

function renderDialog(handlers: Record<string, (input: unknown) => unknown> = {}) {
  let open = true
  const view = renderWithProviders(<Harness onClosed={() => (open = false)} />, {
    'snapshots.previewRollback': () => report(),
    'snapshots.rollback': () => report({ preview: false, safetyTag: 'safety-1700000500' }),
    'snapshots.undo': () => ({
      ...report({ preview: false, target: 'safety-1700000500' }),
      undid: 'task-1-pre',
    }),
    // The safety snapshot the toast names, read back from the list.
    'snapshots.list': () => ({
      items: [snap({ tag: 'safety-1700000500', kind: 'safety', createdAt: SAFETY_AT })],
      total: 1,
    }),
    ...handlers,
  })
  return { ...view, isOpen: () => open }
}

const SAFETY_AT = new Date(2026, 0, 2, 14, 2).getTime()
const at = clockTime(SAFETY_AT)

const dialog = () => screen.findByRole('alertdialog', { name: 'Roll back to task-1-pre' })

describe('rollback dialog', () => {
  it('shows the preview: files overwritten, restored, deleted, left alone, and that Undo brings it back', async () => {
    const { calls } = renderDialog()
    const d = await dialog()
    await within(d).findByTestId('rollback-preview')
    expect(calls.find((c) => c.name === 'snapshots.previewRollback')?.input).toEqual({
      projectId: 1,
      tag: 'task-1-pre',
    })
    const list = (name: string) => within(d).getByRole('list', { name }).textContent
    expect(list('Overwritten')).toBe('index.html')
    expect(list('Restored')).toBe('old.css')
    expect(list('Deleted')).toBe('hours.html')
    expect(list('Left alone')).toBe('node_modules')
    expect(d).toHaveTextContent('Undo brings everything back.')
    expect(within(d).getByRole('button', { name: 'Cancel' })).toBeInTheDocument()
  })

  it('shows prominently the files that were never snapshotted and cannot come back', async () => {
    renderDialog({
      'snapshots.previewRollback': () =>
        report({
          neverSnapshotted: [
            {
              path: 'video.mp4',
              reason: 'too-large',
              message: 'video.mp4 was too large to snapshot: it cannot come back',
            },
          ],
        }),
    })
    const d = await dialog()
    const never = await within(d).findByRole('list', { name: 'Cannot come back' })
    expect(never).toHaveTextContent('video.mp4 was too large to snapshot: it cannot come back')
    expect(d).toHaveTextContent('Some files cannot come back')
  })

  it('confirm rolls back, closes, and toasts with Undo, which calls snapshots.undo', async () => {
    const view = renderDialog()
    const d = await dialog()
    await within(d).findByTestId('rollback-preview')
    await userEvent.click(within(d).getByRole('button', { name: 'Roll back' }))
    await waitFor(() => expect(view.isOpen()).toBe(false))
    expect(view.calls.find((c) => c.name === 'snapshots.rollback')?.input).toEqual({
      projectId: 1,
      tag: 'task-1-pre',
    })
    expect(await screen.findByText('Rolled back to task-1-pre')).toBeInTheDocument()
    // The toast names what Undo returns to: the safety snapshot, by its time.
    expect(
      await screen.findByText(
        `3 of your files changed. Undo: back to the files as they were before rolling back to before Task 1 (safety snapshot ${at}).`,
      ),
    ).toBeInTheDocument()
    const undo = await screen.findByRole('button', { name: 'Undo' })
    await userEvent.dblClick(undo)
    await waitFor(() => expect(view.calls.some((c) => c.name === 'snapshots.undo')).toBe(true))
    expect(view.calls.find((c) => c.name === 'snapshots.undo')?.input).toEqual({ projectId: 1 })
    expect(
      await screen.findByText(
        `Undo: back to the files as they were before rolling back to before Task 1 (safety snapshot ${at})`,
      ),
    ).toBeInTheDocument()
    // A double click undid once.
    expect(view.calls.filter((c) => c.name === 'snapshots.undo')).toHaveLength(1)
  })

  it('a double-clicked Roll back rolls back once', async () => {
    const view = renderDialog()
    const d = await dialog()
    await within(d).findByTestId('rollback-preview')
    await userEvent.dblClick(within(d).getByRole('button', { name: 'Roll back' }))
    await waitFor(() => expect(view.isOpen()).toBe(false))
    expect(view.calls.filter((c) => c.name === 'snapshots.rollback')).toHaveLength(1)
  })

  it('a rollback that changed nothing says so and offers no Undo', async () => {
    renderDialog({
      'snapshots.rollback': () =>
        report({ preview: false, safetyTag: 'safety-1700000500', written: [], deleted: [] }),
    })
    const d = await dialog()
    await within(d).findByTestId('rollback-preview')
    await userEvent.click(within(d).getByRole('button', { name: 'Roll back' }))
    const said = await screen.findByText(
      'Nothing changed: the folder already matched before Task 1, so there is nothing to undo.',
    )
    const toast = said.closest<HTMLElement>('[data-sonner-toast]')!
    expect(within(toast).queryByRole('button', { name: 'Undo' })).toBeNull()
  })

  it('lists the user’s files first, counted alone, and Ralph’s own files in a collapsed group', async () => {
    renderDialog({
      'snapshots.previewRollback': () =>
        report({
          written: [
            { path: '.ralph/task.md', change: 'modified' },
            { path: 'index.html', change: 'modified' },
          ],
          deleted: ['.ralph/summary.md', 'app.js'],
        }),
    })
    const d = await dialog()
    await within(d).findByTestId('rollback-preview')
    expect(within(d).getByTestId('rollback-headline')).toHaveTextContent(
      '2 of your files change: 1 overwritten, 1 deleted.',
    )
    expect(within(d).getByRole('list', { name: 'Overwritten' })).toHaveTextContent('index.html')
    expect(within(d).getByRole('list', { name: 'Deleted' })).toHaveTextContent('app.js')
    const own = within(d).getByTestId('ralph-own-files')
    expect(own).not.toHaveAttribute('open')
    expect(own.querySelector('summary')).toHaveTextContent('Ralph’s own files (2)')
    expect(own).toHaveTextContent('.ralph/summary.md')
  })

  it('keeps a refusal (a task is running) in the dialog with its message, and offers to stop the task', async () => {
    const view = renderDialog({ 'tasks.stop': () => ({ stopped: true }) })
    const call = view.transport.call
    view.transport.call = async (name, input, options): Promise<BridgeResult> =>
      name === 'snapshots.rollback'
        ? { ok: false, error: { kind: 'busy', message: 'a task is running: stop it first' } }
        : call(name, input, options)
    const d = await dialog()
    await within(d).findByTestId('rollback-preview')
    await userEvent.click(within(d).getByRole('button', { name: 'Roll back' }))
    const alert = await within(d).findByRole('alert')
    expect(alert).toHaveTextContent('a task is running: stop it first')
    expect(view.isOpen()).toBe(true)
    expect(screen.getByRole('alertdialog', { name: 'Roll back to task-1-pre' })).toBe(d)
    await userEvent.click(within(d).getByRole('button', { name: 'Stop the task' }))
    await waitFor(() => expect(view.calls.some((c) => c.name === 'tasks.stop')).toBe(true))
  })

  it('Cancel closes without rolling back', async () => {
    const view = renderDialog()
    const d = await dialog()
    await userEvent.click(within(d).getByRole('button', { name: 'Cancel' }))
    expect(view.isOpen()).toBe(false)
    expect(view.calls.some((c) => c.name === 'snapshots.rollback')).toBe(false)
  })
})
