import { ArrowLeft, Square } from 'lucide-react'
import { useEffect, useRef, useState } from 'react'
import { Badge, Banner, Button } from '../../ui'
import { errorMessage } from '../../app/queries'
import { routeHash } from '../../app/routes'
import { useDocumentTitle } from '../../app/useDocumentTitle'
import { useProject } from '../../app/projectQueries'
import { CrystallizeStep } from './CrystallizeStep'
import { DoneStep } from './DoneStep'
import { IdeateStep } from './IdeateStep'
import { OrganizeStep } from './OrganizeStep'
import { OutputStep } from './OutputStep'
import { QuickForm } from './QuickForm'
import { useBrainstorm, useStep, useStop } from './queries'
import { ReviewStep } from './ReviewStep'
import { SetupStep } from './SetupStep'
import { StartScreen } from './StartScreen'
import { Stepper } from './Stepper'
import { TechniqueStep } from './TechniqueStep'
import type { StepProps } from './types'
import { useBrainstormToasts } from './useBrainstormToasts'
import './brainstorm.css'

// 0 USD means the model has no price (local or unknown), not that it was free.
const usd = (n: number) => (n === 0 ? 'cost not estimated' : n < 0.01 ? '<$0.01' : `$${n.toFixed(2)}`)

/** The brainstorm wizard (`#/project/<id>/brainstorm`): the same engine as `ralph brainstorm`, as screens. */
export function BrainstormPage({ projectId }: { projectId: number }) {
  const project = useProject(projectId)
  const bs = useBrainstorm(projectId)
  const step = useStep(projectId)
  const stop = useStop(projectId)
  const [fresh, setFresh] = useState(false)
  const top = useRef<HTMLDivElement>(null)
  useDocumentTitle(project.data ? `Brainstorm · ${project.data.name}` : null)
  useBrainstormToasts(projectId)

  const data = bs.data
  const session = data?.session ?? null
  const running = !!data?.running || step.isPending
  const busy = running ? 'Wait for the facilitator to finish this step, or stop it.' : null
  const answer: StepProps['answer'] = (text, edits) =>
    step.mutate({ call: 'brainstorm.answer', input: { text, ...edits } })
  const showStart = !session || (session.phase === 'done' && fresh)
  // Each phase starts at the top, with the stepper in view (the page scrolls inside the app's main area).
  const phase = showStart ? 'start' : session?.phase
  useEffect(() => {
    // A block body: newer Chromium returns a Promise from scrollIntoView, which React must not get as a cleanup.
    top.current?.scrollIntoView?.({ block: 'start' })
  }, [phase])
  const props: StepProps | null = session ? { projectId, session, busy, answer } : null

  return (
    <div className="page bs-page" ref={top}>
      <header className="bs-header">
        <div className="bs-heading">
          <a className="bs-back" href={routeHash({ page: 'project', projectId })}>
            <ArrowLeft size={14} aria-hidden /> {project.data?.name ?? 'Project'}
          </a>
          <h1>
            Brainstorm{' '}
            {session?.mode === 'quick' && !showStart ? <Badge tone="accent">Quick mode</Badge> : null}
          </h1>
        </div>
        {session && !showStart ? (
          <p className="muted bs-usage" title="Model calls of this session, their tokens and estimated cost">
            {session.usage.calls} model call{session.usage.calls === 1 ? '' : 's'} ·{' '}
            {(session.usage.inputTokens + session.usage.outputTokens).toLocaleString()} tokens ·{' '}
            {usd(session.usage.usd)}
          </p>
        ) : null}
      </header>
      {session && !showStart ? <Stepper phase={session.phase} mode={session.mode} /> : null}
      {running ? (
        <div className="bs-progress" role="status">
          <span className="bs-spinner" aria-hidden />
          <span>The facilitator is working…</span>
          <Button
            size="sm"
            icon={<Square size={12} aria-hidden />}
            disabledReason={data?.running ? null : 'Starting…'}
            onClick={() => stop.mutate()}
          >
            Stop
          </Button>
        </div>
      ) : null}
      {bs.error ? <Banner tone="error">{errorMessage(bs.error)}</Banner> : null}
      {step.error ? <Banner tone="error">{errorMessage(step.error)}</Banner> : null}
      {data?.error ? <Banner tone="warn">{data.error}</Banner> : null}
      {session?.due && !running ? (
        <div className="bs-actions">
          <Button variant="primary" onClick={() => step.mutate({ call: 'brainstorm.start', input: {} })}>
            Continue
          </Button>
          <span className="muted">A step was left unfinished; Continue runs it again.</span>
        </div>
      ) : null}
      {!data ? (
        bs.isPending ? (
          <p className="muted">Loading the brainstorm…</p>
        ) : null
      ) : showStart ? (
        <StartScreen
          busy={busy}
          existing={!!session?.existing.vision || !!session?.existing.roadmap}
          onStart={() =>
            step.mutate({ call: 'brainstorm.start', input: {} }, { onSuccess: () => setFresh(false) })
          }
          onQuick={(quick) =>
            step.mutate({ call: 'brainstorm.start', input: { quick } }, { onSuccess: () => setFresh(false) })
          }
        />
      ) : props ? (
        <Phase {...props} notice={data.notice} onNew={() => setFresh(true)} />
      ) : null}
    </div>
  )
}

function Phase(props: StepProps & { notice: string | null; onNew: () => void }) {
  const { session, busy, projectId } = props
  const step = useStep(projectId)
  switch (session.phase) {
    case 'setup':
      return <SetupStep {...props} />
    case 'technique':
      return <TechniqueStep {...props} />
    case 'ideate':
      return <IdeateStep {...props} />
    case 'organize':
      return <OrganizeStep key={JSON.stringify(session.themes)} {...props} />
    case 'crystallize':
      return <CrystallizeStep key={JSON.stringify(session.statements)} {...props} />
    case 'quick':
      return (
        <QuickForm
          answered={session.quickAnswers}
          busy={busy}
          onSubmit={(quick) => step.mutate({ call: 'brainstorm.start', input: { quick } })}
        />
      )
    case 'output':
      return <OutputStep {...props} />
    case 'review':
      return <ReviewStep {...props} />
    case 'done':
      return <DoneStep {...props} />
  }
}
