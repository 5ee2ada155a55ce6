import { Info } from 'lucide-react'
import type { ProjectState } from '../../../../shared/project'
import { HeaderDialog } from './HeaderDialog'
import { currentPhase, lastTaskWords } from './projectStatus'

/** What each fact means, written under it (jargon explained where it is read, never behind a tab stop). */
const explain = {
  'Last task':
    'The newest task run, named and worded as its card in the conversation says. Each message sent in Task mode is one task; each attempt of a queue build is one too.',
  Phase:
    'Where Ralph’s loop stands in the running task: PLAN while it works out what to change (the plan in .ralph/plan.tsx), BUILD while it changes the files (a bug fix starts in BUILD). Shown while a task runs.',
  Files:
    'Files in the project folder, leaving out .ralph/, .git and folders such as node_modules (counting stops at 10,000: then “+”).',
  Plan: 'Whether Ralph has written its plan for this project (.ralph/plan.tsx; the Plan tab shows it).',
  'Your git':
    'Your own git repository in this folder. Ralph never commits to it unless you ask (Commit to my git).',
} as const

/** What the core knows about the folder, each fact with what it means: the body of the Project details dialog. */
export function ProjectFacts({ state, taskRunning }: { state: ProjectState; taskRunning: boolean }) {
  const facts: { label: keyof typeof explain; value: string }[] = [
    { label: 'Last task', value: lastTaskWords(state) },
    { label: 'Phase', value: currentPhase(state, taskRunning) ?? 'No task running' },
    { label: 'Files', value: `${state.fileCount}${state.fileCountCapped ? '+' : ''}` },
    { label: 'Plan', value: state.hasPlan ? 'plan.tsx written' : 'No plan yet' },
    {
      label: 'Your git',
      value: state.isGitRepo ? 'Repository (commits only when you ask)' : 'Not a git repository',
    },
  ]
  return (
    <dl className="details-facts" aria-label="Project state">
      {facts.map((f) => (
        <div key={f.label} className="details-fact">
          <dt>{f.label}</dt>
          <dd className="fact-value">{f.value}</dd>
          <dd className="fact-explain muted">{explain[f.label]}</dd>
        </div>
      ))}
    </dl>
  )
}

/** The header's one button to the project's facts: they no longer take a strip of the conversation's height. */
export function ProjectDetails({
  state,
  taskRunning,
  describedBy,
}: {
  state: ProjectState
  taskRunning: boolean
  /** The element saying the project's status in a sentence: the button's description. */
  describedBy?: string
}) {
  return (
    <HeaderDialog
      compact
      describedBy={describedBy}
      icon={<Info size={16} aria-hidden />}
      title="Project details"
      description="What Ralph knows about this folder now."
    >
      {() => <ProjectFacts state={state} taskRunning={taskRunning} />}
    </HeaderDialog>
  )
}
