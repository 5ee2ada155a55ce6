import { create } from 'zustand'
import type { Client } from '../../api'

/** The running task's text since its last tool call (the journal has what came before, in the iterations). */
export interface LiveTaskText {
  task: number
  text: string
}

interface LiveTaskTexts {
  byProject: Record<number, LiveTaskText>
}

/** Kept per stretch; the core keeps the same much and says the rest was cut (src/main/tasks/runJournal.ts). */
const MAX_CHARS = 20_000

/**
 * The model's streamed text per project, for the running card's live line only. Deltas arrive up to hundreds a
 * second: they are gathered and applied once per animation frame, so a burst costs one render, not hundreds.
 */
export const useLiveTaskText = create<LiveTaskTexts>()(() => ({ byProject: {} }))

interface Pending {
  /** The stretch ended (a tool call, a new iteration, the end): the text starts again from `text`. */
  restart: boolean
  task: number
  text: string
}

const pending = new Map<number, Pending>()
let scheduled = false

function schedule(): void {
  if (scheduled) return
  scheduled = true
  // A hidden window has no frames; a timer still lets the text catch up there.
  if (typeof requestAnimationFrame === 'function' && document.visibilityState === 'visible')
    requestAnimationFrame(flushLiveTaskText)
  else setTimeout(flushLiveTaskText, 50)
}

/** Applies what arrived since the last frame (exported for tests, which have no frames to wait for). */
export function flushLiveTaskText(): void {
  scheduled = false
  if (!pending.size) return
  const next = { ...useLiveTaskText.getState().byProject }
  for (const [projectId, p] of pending) {
    const before = next[projectId]
    const base = p.restart || !before || before.task !== p.task ? '' : before.text
    next[projectId] = { task: p.task, text: (base + p.text).slice(-MAX_CHARS) }
  }
  pending.clear()
  useLiveTaskText.setState({ byProject: next })
}

function append(projectId: number, task: number, text: string): void {
  const p = pending.get(projectId)
  if (p && p.task === task) p.text += text
  else pending.set(projectId, { restart: false, task, text })
  schedule()
}

function restart(projectId: number, task: number): void {
  pending.set(projectId, { restart: true, task, text: '' })
  schedule()
}

export function subscribeLiveTaskText(client: Client): () => void {
  const offs = [
    client.on('loop.delta', ({ projectId, task, text }) => append(projectId, task, text)),
    client.on('loop.event', ({ projectId, event }) => {
      if (event.type === 'iteration.started' || event.type === 'tool.called' || event.type === 'task.started')
        restart(projectId, event.task)
    }),
    client.on('loop.finished', ({ projectId, task }) => restart(projectId, task)),
  ]
  return () => offs.forEach((off) => off())
}
