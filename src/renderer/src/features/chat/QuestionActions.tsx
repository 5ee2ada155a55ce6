import { CornerDownRight, MessageSquareReply, XCircle } from 'lucide-react'
import type { ReactNode } from 'react'
import type { TaskCardDto } from '../../../../shared/api/chat'
import { FieldError } from '../../app/FieldError'
import { useRunning } from '../../app/projectQueries'
import { ActionButton, Button } from '../../ui'
import { useChatUi } from './chatUi'
import { useDismissQuestion, useSend } from './queries'

const DISMISS_HINT =
  'Ends this task without an answer: it shows as Stopped, the snapshot from before it is kept, and your next message starts a new task.'

/** Dismiss: the waiting task ends as Stopped. On the card and in the composer. */
export function DismissQuestionButton({
  projectId,
  task,
  label = 'Dismiss',
}: {
  projectId: number
  task: number
  label?: string
}) {
  const dismiss = useDismissQuestion(projectId)
  return (
    <span className="question-dismiss">
      <ActionButton
        size="sm"
        variant="ghost"
        icon={<XCircle size={13} aria-hidden />}
        title={DISMISS_HINT}
        onAction={() => dismiss.mutateAsync(task)}
      >
        {label}
      </ActionButton>
      <FieldError error={dismiss.error} />
    </span>
  )
}

/**
 * A task waiting for an answer says how to go on: Answer (the message box, in Task mode, says it answers this
 * question) or Dismiss (the task ends as Stopped).
 */
export function QuestionActions({ card, projectId }: { card: TaskCardDto; projectId: number }) {
  if (card.status !== 'waiting' || card.task === null) return null
  return (
    <div className="card-flow-actions" role="group" aria-label="Ralph’s question">
      <Button
        size="sm"
        variant="primary"
        icon={<MessageSquareReply size={13} aria-hidden />}
        title="Write your answer in the message box below"
        onClick={() => {
          const ui = useChatUi.getState()
          ui.view(projectId, null)
          ui.setMode(projectId, 'task')
          ui.focusComposer(projectId)
        }}
      >
        Answer
      </Button>
      <DismissQuestionButton projectId={projectId} task={card.task} />
    </div>
  )
}

/** The questions a card's task asked, oldest first: its stored ones, or (older cards) the one it waits on. */
function questionsOf(card: TaskCardDto): { text: string; options: string[] }[] {
  if (card.questions?.length) return card.questions
  const waiting = card.status === 'waiting' ? (card.outcome ?? card.detail) : null
  return waiting ? [{ text: waiting, options: [] }] : []
}

/**
 * The card's questions and the user's answers, each answer under its question (issue 37). The open question (the
 * task waits) offers the answers it names as quick replies: one click sends that answer.
 */
export function CardQuestions({
  card,
  projectId,
  answers,
  question,
}: {
  card: TaskCardDto
  projectId: number
  answers: readonly string[]
  /** How the open question is written (the card's words: command text for an engine's task). */
  question(text: string): ReactNode
}) {
  const asked = questionsOf(card)
  const waiting = card.status === 'waiting' && card.task !== null
  // Answers beyond the stored questions (cards older than them) still show, as answers.
  const rows = Math.max(asked.length, answers.length)
  if (rows === 0) return null
  return (
    <ol className="task-card-qa" aria-label="Questions and answers">
      {Array.from({ length: rows }, (_, i) => {
        const q = asked[i]
        const answer = answers[i]
        const open = waiting && answer === undefined && i === asked.length - 1
        return (
          <li key={i} className="task-card-qa-item">
            {q && open ? (
              <p className="task-card-outcome outcome-waiting">
                Ralph asks: {question(q.text)} Answer below to continue this task.
              </p>
            ) : q ? (
              <p className="task-card-qa-question">Ralph asked: {q.text}</p>
            ) : null}
            {answer !== undefined ? (
              <p className="task-card-qa-answer">
                <CornerDownRight size={13} aria-hidden /> You answered: {answer}
              </p>
            ) : null}
            {open && q && q.options.length ? (
              <QuickReplies projectId={projectId} task={card.task!} options={q.options} />
            ) : null}
          </li>
        )
      })}
    </ol>
  )
}

/** The answers a question names, as buttons that send that answer to the waiting task (the card, the composer). */
export function QuickReplies({
  projectId,
  task,
  options,
  label = 'Quick replies',
}: {
  projectId: number
  task: number
  options: readonly string[]
  /** The group's name: the composer's says whose question it answers, apart from the card's. */
  label?: string
}) {
  const send = useSend(projectId)
  const running = useRunning(projectId)
  return (
    <div className="task-card-quick-replies" role="group" aria-label={label}>
      {options.map((option) => (
        <ActionButton
          key={option}
          size="sm"
          title="Send this as your answer"
          disabledReason={running ? 'A task is running: answer once it ends' : null}
          onAction={() => send.mutateAsync({ mode: 'task', text: option, queue: false, answering: task })}
        >
          {option}
        </ActionButton>
      ))}
      <FieldError error={send.error} />
    </div>
  )
}
