import { screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { useState } from 'react'
import { describe, expect, it } from 'vitest'
import type { BridgeResult } from '../../../../shared/api/bridge'
import { renderWithProviders } from '../../test/render'
import { RollbackDialog } from './RollbackDialog'
import { report } from './testData'

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
    ...handlers,
  })
  return { ...view, isOpen: () => open }
}

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
    await userEvent.click(await screen.findByRole('button', { name: 'Undo' }))
    await waitFor(() => expect(view.calls.some((c) => c.name === 'snapshots.undo')).toBe(true))
    expect(view.calls.find((c) => c.name === 'snapshots.undo')?.input).toEqual({ projectId: 1 })
    expect(
      await screen.findByText('Undid the rollback to task-1-pre: the files are back as they were'),
    ).toBeInTheDocument()
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
