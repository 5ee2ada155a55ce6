import type { ProjectState } from '../../../../shared/project'
import { Tooltip } from '../../ui'
import { useLastRunStatus } from './ProjectStatus'

const statusText: Record<ProjectState['status'], string> = {
  idle: 'Idle — no task yet',
  waiting: 'Waiting for your first message',
  running: 'A task is running',
  complete: 'Last task complete',
  failed: 'Last task failed',
  interrupted: 'Last task was interrupted',
}

/** What each fact means, on hover and keyboard focus of its label (jargon explained on first sight). */
const explain = {
  State: 'What the project is doing now, as Ralph’s own folder (.ralph/) records it.',
  Tasks: 'How many tasks this project has run: each message sent in Task mode is one.',
  Phase:
    'Where Ralph’s loop stands in a task: PLAN while it works out what to change (the plan in .ralph/plan.tsx), BUILD while it changes the files (a bug fix starts in BUILD). Shown once a task has run.',
  Files:
    'Files in the project folder, leaving out .ralph/, .git and folders such as node_modules (counting stops at 10,000: then “+”).',
  Plan: 'Whether Ralph has written its plan for this project (.ralph/plan.tsx; the Plan tab shows it).',
  'Your git':
    'Your own git repository in this folder. Ralph never commits to it unless you ask (Commit to my git).',
} as const

/** What the core knows about the folder: read from `.ralph/` and its git state. */
export function ProjectFacts({ state, projectId }: { state: ProjectState; projectId?: number }) {
  // `.ralph/status` says failed for a stopped task; its run row (what the card and the header read) says stopped.
  const lastRun = useLastRunStatus(projectId)
  const stopped = state.status === 'failed' && lastRun === 'stopped'
  const facts: { label: keyof typeof explain; value: string; testId?: string }[] = [
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
    // Before the first task the loop has no phase worth naming.
    { label: 'Phase', value: state.phase && state.taskCount > 0 ? state.phase.toUpperCase() : '—' },
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
          <Tooltip content={explain[f.label]}>
            <dt tabIndex={0} className="fact-term">
              {f.label}
            </dt>
          </Tooltip>
          <dd data-testid={f.testId}>{f.value}</dd>
        </div>
      ))}
    </dl>
  )
}
