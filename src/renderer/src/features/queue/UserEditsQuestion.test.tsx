import { screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { describe, expect, it } from 'vitest'
import { AppError } from '../../../../shared/errors'
import {
  applyBuildEvent,
  idleBuild,
  type BuildProgress,
  type QueueBuildEvent,
} from '../../../../shared/queueBuild'
import { renderWithProviders } from '../../test/render'
import { BuildSection } from './BuildSection'

const asked: QueueBuildEvent[] = [
  {
    type: 'build.started',
    mode: 'yolo',
    order: ['t-a', 't-b'],
    budget: { maxCostUsd: null, maxMinutes: null },
  },
  {
    type: 'build.user-edits',
    taskId: 't-a',
    name: 'Write a.txt',
    task: 4,
    lane: 2,
    paths: ['a.txt', 'src/b.ts'],
    question: 'You changed a.txt, src/b.ts during the build …?',
  },
]
const fold = (events: QueueBuildEvent[]): BuildProgress =>
  events.reduce((p, e) => applyBuildEvent(p, e, 1_000), idleBuild())

function renderSection(answer: (input: unknown) => unknown) {
  const progress = fold(asked)
  return renderWithProviders(
    <BuildSection
      projectId={1}
      progress={progress}
      onApprove={async () => undefined}
      onReject={async () => undefined}
      answering={false}
      names={new Map([['t-a', 'Write a.txt']])}
    />,
    { 'queue.answerUserEdits': answer, 'queue.buildStatus': () => progress },
  )
}

describe('the build’s question about your edits', () => {
  it.each([
    ['Keep my edits', 'keep-theirs'],
    ["Take the task's", 'take-task'],
    ['Stop the build', 'stop'],
  ])('names the task, its lane and the files; %s answers %s', async (button, answer) => {
    const view = renderSection(() => ({ answered: true }))
    const question = screen.getByRole('group', { name: 'Your edits' })
    expect(question).toHaveTextContent('“Write a.txt” (task 4, lane 2) changes 2 files you changed')
    expect(
      within(within(question).getByRole('list', { name: 'Files you changed' }))
        .getAllByRole('listitem')
        .map((li) => li.textContent),
    ).toEqual(['a.txt', 'src/b.ts'])
    expect(within(question).getByRole('button', { name: "Take the task's" })).toHaveAttribute(
      'title',
      expect.stringContaining('safety snapshot task-4-pre'),
    )
    await userEvent.click(within(question).getByRole('button', { name: button }))
    await waitFor(() =>
      expect(view.calls.filter((c) => c.name === 'queue.answerUserEdits').map((c) => c.input)).toEqual([
        { projectId: 1, answer },
      ]),
    )
  })

  it('shows the core’s refusal where the user answered', async () => {
    renderSection(() => {
      throw new AppError('busy', 'The build no longer waits for an answer.')
    })
    const question = screen.getByRole('group', { name: 'Your edits' })
    await userEvent.click(within(question).getByRole('button', { name: 'Keep my edits' }))
    expect(await within(question).findByRole('alert')).toHaveTextContent(
      'The build no longer waits for an answer.',
    )
  })

  it('is gone once answered or the build ended', () => {
    const answered = applyBuildEvent(
      fold(asked),
      {
        type: 'build.user-edits-answered',
        ...{ taskId: 't-a', task: 4, lane: 2, paths: ['a.txt'], answer: 'stop', snapshot: null },
        message: 'Paused.',
      },
      2_000,
    )
    renderWithProviders(
      <BuildSection
        projectId={1}
        progress={answered}
        onApprove={async () => undefined}
        onReject={async () => undefined}
        answering={false}
        names={new Map()}
      />,
    )
    expect(screen.queryByRole('group', { name: 'Your edits' })).toBeNull()
  })
})
