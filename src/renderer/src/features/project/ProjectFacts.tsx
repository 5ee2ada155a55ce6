import type { ProjectState } from '../../../../shared/project'
import { useLastRunStatus } from './ProjectStatus'

const statusText: Record<ProjectState['status'], string> = {
  idle: 'Idle — no task yet',
  waiting: 'Waiting for your first message',
  running: 'A task is running',
  complete: 'Last task complete',
  failed: 'Last task failed',
  interrupted: 'Last task was interrupted',
}

/** What the core knows about the folder: read from `.ralph/` and its git state. */
export function ProjectFacts({ state, projectId }: { state: ProjectState; projectId?: number }) {
  // `.ralph/status` says failed for a stopped task; its run row (what the card and the header read) says stopped.
  const lastRun = useLastRunStatus(projectId)
  const stopped = state.status === 'failed' && lastRun === 'stopped'
  const facts: { label: string; value: string; testId?: string; hint?: string }[] = [
    {
      label: 'State',
      // `waiting` is both a new project's state and a task's pending question.
      value: stopped
        ? 'Last task was stopped'
        : state.status === 'waiting' && state.taskCount > 0
          ? 'Waiting for your answer'
          : (statusText[state.status] ?? state.status),
      testId: 'project-status',
    },
    { label: 'Tasks', value: String(state.taskCount) },
    {
      // The loop's phase means something only once a task has run (a new project's `.ralph/phase` says PLAN).
      label: 'Phase',
      value: state.phase && state.taskCount > 0 ? state.phase.toUpperCase() : '—',
      hint: 'Where the latest task is: PLAN updates the plan (.ralph/plan.tsx), BUILD changes the files. A bug fix starts in BUILD.',
    },
    { label: 'Files', value: `${state.fileCount}${state.fileCountCapped ? '+' : ''}` },
    { label: 'Plan', value: state.hasPlan ? 'plan.tsx written' : 'No plan yet' },
    {
      label: 'Your git',
      value: state.isGitRepo ? 'Repository (commits only when you ask)' : 'Not a git repository',
    },
  ]
  return (
    <dl className="facts" aria-label="Project state">
      {facts.map((f) => (
        <div key={f.label} className="fact">
          <dt>{f.label}</dt>
          <dd data-testid={f.testId} title={f.hint}>
            {f.value}
          </dd>
        </div>
      ))}
    </dl>
  )
}
