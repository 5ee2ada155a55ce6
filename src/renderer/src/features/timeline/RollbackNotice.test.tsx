import { screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { describe, expect, it } from 'vitest'
import type { RollbackNotice as Notice } from '../../../../shared/api/snapshots'
import { renderWithProviders } from '../../test/render'
import { RollbackNotice } from './RollbackNotice'
import { report, snapshotStatus } from './testData'

const status = (rollbackNotice: Notice | null) =>
  snapshotStatus({ dirty: false, changes: { added: 0, modified: 0, deleted: 0 }, rollbackNotice })

const notice = (patch: Partial<Notice> = {}): Notice => ({
  state: 'finished',
  target: 'task-1-pre',
  safetyTag: 'safety-1700000500',
  undo: false,
  startedAt: 1_700_000_500_000,
  reason: null,
  message: 'A rollback to task-1-pre was interrupted and has been finished.',
  ...patch,
})

describe('the interrupted-rollback notice', () => {
  it('says a finished one, and Dismiss hides it for good (snapshots.dismissRollbackNotice)', async () => {
    const view = renderWithProviders(<RollbackNotice projectId={1} />, {
      'snapshots.status': () => status(notice()),
      'snapshots.dismissRollbackNotice': () => ({ dismissed: true }),
    })
    const banner = await screen.findByTestId('rollback-notice')
    expect(banner).toHaveAttribute('role', 'status')
    expect(banner).toHaveTextContent(
      'A rollback to task-1-pre was interrupted and has been finished. The project is at task-1-pre; ' +
        'safety-1700000500 holds the files from before it.',
    )
    expect(within(banner).queryByRole('button', { name: 'Finish rollback' })).toBeNull()
    await userEvent.click(within(banner).getByRole('button', { name: 'Dismiss' }))
    expect(screen.queryByTestId('rollback-notice')).toBeNull()
    await waitFor(() =>
      expect(view.calls.find((c) => c.name === 'snapshots.dismissRollbackNotice')?.input).toEqual({
        projectId: 1,
      }),
    )
  })

  it('names an undo as an undo', async () => {
    renderWithProviders(<RollbackNotice projectId={1} />, {
      'snapshots.status': () => status(notice({ undo: true, target: 'safety-1700000400' })),
    })
    expect(await screen.findByTestId('rollback-notice')).toHaveTextContent(
      'An undo (the rollback to safety-1700000400) was interrupted and has been finished.',
    )
  })

  it('offers Finish rollback for one it could not finish, which calls snapshots.finishRollback', async () => {
    let finished = false
    const view = renderWithProviders(<RollbackNotice projectId={1} />, {
      'snapshots.status': () =>
        status(
          finished
            ? null
            : notice({
                state: 'interrupted',
                reason: 'src/new.txt changed since, and the rollback does not change it.',
              }),
        ),
      'snapshots.finishRollback': () => {
        finished = true
        return report({ preview: false, safetyTag: 'safety-1700000900' })
      },
    })
    const banner = await screen.findByRole('alert')
    expect(banner).toHaveTextContent(
      'A rollback to task-1-pre was interrupted: the project is partly at task-1-pre. src/new.txt changed ' +
        'since, and the rollback does not change it. Finish rollback saves the files as they are, then ' +
        'restores task-1-pre.',
    )
    await userEvent.click(within(banner).getByRole('button', { name: 'Finish rollback' }))
    await waitFor(() =>
      expect(view.calls.find((c) => c.name === 'snapshots.finishRollback')?.input).toEqual({ projectId: 1 }),
    )
    await waitFor(() => expect(screen.queryByTestId('rollback-notice')).toBeNull())
  })

  it('shows nothing when no rollback was interrupted', async () => {
    const view = renderWithProviders(<RollbackNotice projectId={1} />, {
      'snapshots.status': () => status(null),
    })
    await waitFor(() => expect(view.calls.some((c) => c.name === 'snapshots.status')).toBe(true))
    expect(screen.queryByTestId('rollback-notice')).toBeNull()
  })
})
