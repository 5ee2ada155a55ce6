import { useEffect, useRef } from 'react'
import { create } from 'zustand'
import type { BuildProgress } from '../../../../shared/queueBuild'
import { workingLanes, type BuildLane } from '../../../../shared/buildLanes'
import { plural } from '../../../../shared/format'
import type { Tone } from '../../ui'
import { forTheApp, taskNames } from './appText'
import { useBuildStatus } from './queries'

/** The core's words (shared with the CLI) as the app says them: what to click, tasks by name. */
const say = (p: BuildProgress, text: string) => forTheApp(text, taskNames(undefined, p))

/**
 * What the project's main view says about a build started from the Queue panel (`queue.buildStatus`): the header's
 * badge and the chat's build strip read the same words from here.
 */

export interface BuildHeadline {
  tone: Tone
  /** The badge: "Building · 2 of 3", "Waiting for approval", "Escalated", "Paused"… */
  label: string
  /** Short, beside the badge: the task the build is on (or ended on). */
  detail: string | null
  /** The whole story, as the detail's tooltip: the step, the question, or why the build ended. */
  hint: string | null
}

type EndStatus = NonNullable<BuildProgress['result']>['status']

/** Endings that leave work for the user; a complete or stopped build says nothing once it is over. */
const endings: Partial<Record<EndStatus, { tone: Tone; label: string }>> = {
  escalated: { tone: 'bad', label: 'Escalated' },
  paused: { tone: 'warn', label: 'Paused' },
  budget: { tone: 'warn', label: 'Paused · budget' },
  failed: { tone: 'bad', label: 'Build failed' },
}

/** Which of the build's tasks is being worked on, counted in the order the build took them ("2 of 3"). */
export function buildPosition(p: BuildProgress): { index: number; total: number } | null {
  if (!p.current) return null
  const inOrder = p.order.indexOf(p.current.taskId)
  const touched = p.tasks.findIndex((t) => t.taskId === p.current!.taskId)
  const index = inOrder >= 0 ? inOrder + 1 : touched + 1
  return { index: Math.max(1, index), total: Math.max(p.order.length, p.tasks.length, index) }
}

/** The build's words for the header, or null when there is nothing to say (no build, or one that ended well). */
export function buildHeadline(p: BuildProgress): BuildHeadline | null {
  if (p.running) {
    const name = p.current?.name ?? null
    if (p.approval)
      return { tone: 'warn', label: 'Waiting for approval', detail: name, hint: say(p, p.approval.question) }
    const lanes = lanesHeadline(p)
    if (lanes) return lanes
    const at = buildPosition(p)
    if (!p.current || !at)
      return {
        tone: 'accent',
        label: 'Building',
        detail: null,
        hint: 'Reading the queue and taking the baseline',
      }
    const { attempt, step } = p.current
    return {
      tone: 'accent',
      label: `Building · ${at.index} of ${at.total}`,
      detail: p.current.name,
      hint: `${p.current.name} (${p.current.taskId}), attempt ${attempt} of ${p.maxAttempts}: ${step}`,
    }
  }
  const ending = p.result ? endings[p.result.status] : undefined
  if (!ending || !p.result) return null
  return { ...ending, detail: p.tasks.at(-1)?.name ?? null, hint: say(p, p.result.message) }
}

/**
 * A parallel build's words: "Building · 3 lanes" (the lanes its tasks hold now), the tasks by name beside it, and
 * each lane's step in the hint. Null for a serial build, or before its first lane.
 */
function lanesHeadline(p: BuildProgress): BuildHeadline | null {
  const lanes = workingLanes(p.lanes)
  if (lanes.length === 0) return null
  const [first, ...others] = lanes
  return {
    tone: 'accent',
    label: `Building · ${plural(lanes.length, 'lane')}`,
    detail: others.length === 0 ? first!.name : `${first!.name} +${others.length}`,
    hint: lanes.map((l) => `Lane ${l.lane}: ${l.name} (${l.taskId}): ${laneNow(l)}`).join('\n'),
  }
}

/** A lane's iteration, step and place in one line: "Iteration 2 of 20 · Making the changes · docker: box". */
const laneNow = (l: BuildLane): string =>
  [
    l.iteration !== null
      ? `Iteration ${l.iteration}${l.maxIterations !== null ? ` of ${l.maxIterations}` : ''}`
      : null,
    l.step,
    l.where,
  ]
    .filter((part) => part !== null)
    .join(' · ')

/** An ended build's identity: a new build (or a restarted core) is another one. */
const buildKey = (p: BuildProgress) => `${p.startedAt ?? 0}:${p.result?.durationMs ?? 0}`

interface SeenBuilds {
  /** Per project, the ended build the user is done with (dismissed it, or ran a chat task since). */
  dismissed: Record<number, string>
  dismiss(projectId: number, key: string): void
}

export const useSeenBuilds = create<SeenBuilds>()((set) => ({
  dismissed: {},
  dismiss: (projectId, key) => set((s) => ({ dismissed: { ...s.dismissed, [projectId]: key } })),
}))

export interface ProjectBuild {
  progress: BuildProgress | null
  /** A build runs: the chat's task controls step aside (a Task message is refused by the core meanwhile). */
  running: boolean
  /** What to say about it, null when nothing (an ended build the user has moved on from says nothing). */
  headline: BuildHeadline | null
  /** Hides an ended build's words (its strip's Dismiss, or a chat task that started after it). */
  dismiss(): void
}

/**
 * The project's panel build as the main view shows it. `taskRunning`: a chat task runs, which means any ended
 * build is behind the user (`build.started`/`build.finished` refresh `tasks.running`: app/eventInvalidation.ts).
 */
export function useProjectBuild(projectId: number, taskRunning: boolean): ProjectBuild {
  const query = useBuildStatus(projectId)
  const progress = query.data ?? null
  const running = progress?.running ?? false
  const dismissed = useSeenBuilds((s) => s.dismissed[projectId])
  const key = progress ? buildKey(progress) : null
  const ended = !!progress && !running && !!progress.result
  const dismiss = () => (key ? useSeenBuilds.getState().dismiss(projectId, key) : undefined)

  // A task starting after the build ended puts the build behind the user. Only a start counts: the build's own
  // lock may still read as a running task for a moment after it ended.
  const taskWasRunning = useRef(taskRunning)
  useEffect(() => {
    if (ended && taskRunning && !taskWasRunning.current && key)
      useSeenBuilds.getState().dismiss(projectId, key)
    taskWasRunning.current = taskRunning
  }, [ended, taskRunning, key, projectId])

  const headline = progress && !(ended && dismissed === key) ? buildHeadline(progress) : null
  return { progress, running, headline, dismiss }
}
