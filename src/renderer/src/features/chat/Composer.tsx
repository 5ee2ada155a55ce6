import { Send, Square } from 'lucide-react'
import { useRef, type KeyboardEvent } from 'react'
import type { ChatMode } from '../../../../shared/api/chat'
import { FieldError } from '../../app/FieldError'
import { shortcutLabel } from '../../app/shortcuts'
import { Button } from '../../ui'
import { useChatUi } from './chatUi'
import { CostCapField, useCostCapCheck } from './CostCapField'
import { useChatKeys } from './useChatKeys'

const modes: { id: ChatMode; label: string; hint: string }[] = [
  { id: 'task', label: 'Task', hint: 'Ralph changes the project, with a snapshot before and after.' },
  { id: 'ask', label: 'Ask', hint: 'Ralph answers from the project and changes nothing.' },
]

/**
 * The message box: Task or Ask, Send (Ctrl/⌘+Enter), and Stop while a task runs. A task waiting for an answer
 * is answered from here, and the box says so.
 */
export function Composer({
  projectId,
  running,
  building = false,
  stoppable,
  waitingTask,
  sending,
  stopping,
  error,
  onSend,
  onAskStop,
  onStop,
}: {
  projectId: number
  /** A task runs: a Task message then waits as a queued card. */
  running: boolean
  /**
   * A build from the Queue panel runs: the core refuses a Task message until it ends (its task lock), so Send
   * is disabled in Task mode and says why before anything is typed; Ask mode still answers.
   */
  building?: boolean
  /** A task runs or an Ask answer is being written: Stop (and Esc) end it. */
  stoppable: boolean
  /** The task number whose question the next Task message answers. */
  waitingTask: number | null
  sending: boolean
  stopping: boolean
  error: unknown
  onSend(mode: ChatMode, text: string): void
  /** Asks before stopping (Esc); the Stop button stops at once. */
  onAskStop(): void
  onStop(): void
}) {
  const mode = useChatUi((s) => s.mode[projectId] ?? 'task')
  const text = useChatUi((s) => s.draft[projectId] ?? '')
  const { setMode, setDraft } = useChatUi.getState()
  const box = useRef<HTMLTextAreaElement>(null)
  useChatKeys(box, stoppable, onAskStop)
  const queues = mode === 'task' && running
  const blockedByBuild = mode === 'task' && building
  const capError = useCostCapCheck(projectId).error
  const canSend = !!text.trim() && !sending && !blockedByBuild && !(mode === 'task' && capError)

  const send = () => {
    if (canSend) onSend(mode, text.trim())
  }
  const onKey = (e: KeyboardEvent) => {
    if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
      e.preventDefault()
      send()
    }
  }
  const placeholder =
    mode === 'ask'
      ? 'Ask about the project…'
      : waitingTask !== null
        ? `Answer Ralph’s question to continue task ${waitingTask}…`
        : 'Describe what Ralph should do…'

  return (
    <div className="composer">
      {blockedByBuild ? (
        <p className="composer-note" data-testid="composer-building">
          A build is running: a Task message can’t start until it ends or you stop it. Ask mode still answers.
        </p>
      ) : queues ? (
        <p className="composer-note" data-testid="composer-queueing">
          A task is running: a message sent now waits in the chat and starts when it ends.
        </p>
      ) : waitingTask !== null && mode === 'task' ? (
        <p className="composer-note" data-testid="composer-answering">
          Your next message answers task {waitingTask}’s question.
        </p>
      ) : null}
      <textarea
        ref={box}
        aria-label="Message"
        className="composer-input"
        rows={3}
        value={text}
        placeholder={placeholder}
        onChange={(e) => setDraft(projectId, e.target.value)}
        onKeyDown={onKey}
      />
      <div className="composer-bar">
        <div role="radiogroup" aria-label="Mode" className="segmented">
          {modes.map((m) => (
            <label key={m.id} className="segmented-option" title={m.hint}>
              <input
                type="radio"
                name={`chat-mode-${projectId}`}
                value={m.id}
                checked={mode === m.id}
                onChange={() => {
                  setMode(projectId, m.id)
                  box.current?.focus()
                }}
              />
              <span>{m.label}</span>
            </label>
          ))}
        </div>
        {mode === 'task' ? <CostCapField projectId={projectId} /> : null}
        <span className="hint">
          <kbd>{shortcutLabel('Enter')}</kbd> to send
          {stoppable ? (
            <>
              , <kbd>Esc</kbd> to stop
            </>
          ) : null}
        </span>
        {stoppable ? (
          <Button icon={<Square size={14} aria-hidden />} onClick={onStop} disabled={stopping}>
            Stop
          </Button>
        ) : null}
        <Button
          variant="primary"
          icon={<Send size={14} aria-hidden />}
          onClick={send}
          disabled={!blockedByBuild && !canSend}
          disabledReason={
            blockedByBuild
              ? 'A build is running: stop it or wait for it to end, then send this task (or switch to Ask).'
              : null
          }
        >
          Send
        </Button>
      </div>
      {mode === 'task' && capError ? (
        <p className="field-error" id={`cost-cap-error-${projectId}`} role="alert">
          {capError}
        </p>
      ) : null}
      <FieldError error={error} />
    </div>
  )
}
