import { forwardRef, useRef, type HTMLAttributes, type KeyboardEvent } from 'react'
import { Virtuoso, type VirtuosoHandle } from 'react-virtuoso'
import type { QueueView } from '../../../../shared/queue'
import { TaskItem, type TaskActions } from './TaskItem'
import type { TaskRow } from './taskRows'

/** Virtuoso's list and item elements, as the `list` "Work queue" (DESIGN.md §15) of the tasks' `listitem`s. */
const List = forwardRef<HTMLDivElement, HTMLAttributes<HTMLDivElement>>(function List(props, ref) {
  return <div {...props} ref={ref} role="list" aria-label="Work queue" className="queue-list" />
})
const Item = (props: HTMLAttributes<HTMLDivElement>) => (
  <div {...props} role="none" className="queue-list-row" />
)

/** What every row reads: passed as Virtuoso's context, so a change of it re-renders the rows on screen. */
interface RowContext {
  projectId: number
  state: QueueView
  actions: TaskActions
}

/**
 * The "Work queue" list, virtualized: a queue of thousands of tasks renders only the rows near the panel's
 * viewport (scrolling the panel itself, so the issues and notifications still follow the list). Tab walks the
 * rows' controls as before — a focused row scrolls into view and brings its neighbours — and Home / End inside
 * the list jump to the first or last task.
 */
export function TaskList({
  rows,
  scroller,
  ...context
}: RowContext & { rows: TaskRow[]; scroller: HTMLElement }) {
  const virtuoso = useRef<VirtuosoHandle>(null)
  // The row to focus once it is rendered (after Home / End scrolled to it).
  const focusIndex = useRef<number | null>(null)

  const focusRow = (index: number): boolean => {
    const button = scroller.querySelector<HTMLElement>(`[data-index="${index}"] button`)
    if (!button) return false
    button.focus()
    return true
  }

  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key !== 'Home' && event.key !== 'End') return
    if (event.altKey || event.ctrlKey || event.metaKey || event.shiftKey || rows.length === 0) return
    event.preventDefault()
    const index = event.key === 'Home' ? 0 : rows.length - 1
    focusIndex.current = index
    virtuoso.current?.scrollToIndex({ index, align: event.key === 'Home' ? 'start' : 'end' })
    if (focusRow(index)) focusIndex.current = null
  }

  return (
    <div className="queue-list-box" onKeyDown={onKeyDown}>
      <Virtuoso<TaskRow, RowContext>
        ref={virtuoso}
        customScrollParent={scroller}
        data={rows}
        context={context}
        computeItemKey={(_, row) => row.task.id}
        components={{ List, Item }}
        increaseViewportBy={600}
        itemsRendered={(items) => {
          const index = focusIndex.current
          if (index === null || !items.some((i) => i.index === index)) return
          // Reported as the rows render: the row's element is there once the frame is committed.
          requestAnimationFrame(() => {
            if (focusIndex.current === index && focusRow(index)) focusIndex.current = null
          })
        }}
        itemContent={(_, row, { projectId, state, actions }) => (
          <TaskItem projectId={projectId} row={row} state={state} actions={actions} />
        )}
      />
    </div>
  )
}
