import { Send, Square } from 'lucide-react'
import { useEffect, useRef, type KeyboardEvent } from 'react'
import type { ChatMode, PendingQuestionDto } from '../../../../shared/api/chat'
import { FieldError } from '../../app/FieldError'
import { keyLabel, surfaceKeys } from '../../app/shortcuts'
import { ActionButton, Button, cx, useSingleFlight } from '../../ui'
import { useChatUi } from './chatUi'
import { ComposerCapWarning } from './ComposerCapWarning'
import { useHostLostReason } from '../../app/useConnection'
import { ChooseModelFirst, useNoModelReason } from '../settings'
import { ComposerEngineWarning } from './ComposerEngineWarning'
import { AttachImagesButton, ComposerImageList, useBlindModel } from './ComposerImages'
import { useComposerImages, type PickedImage } from './composerImages'
import { composerIntent, lengthCheck } from './composerIntent'
import { CostCapField, useCostCapCheck } from './CostCapField'
import { DismissQuestionButton, QuickReplies } from './QuestionActions'
import { useChatKeys } from './useChatKeys'
import './composer.css'

const modes: { id: ChatMode; label: string; hint: string }[] = [
  { id: 'task', label: 'Task', hint: 'Ralph changes the project, with a snapshot before and after.' },
  { id: 'ask', label: 'Ask', hint: 'Ralph answers from the project and changes nothing.' },
]

/**
 * The message box: Task or Ask, Send (Ctrl/⌘+Enter), and Stop while a task runs. A line above it always says what
 * the next message will do: a new task, one queued after the running task, the answer to Ralph's question (which
 * can be dismissed from here too), or a question that changes nothing.
 */
export function Composer({
  projectId,
  running,
  runningTask = null,
  building = false,
  stoppable,
  pending,
  replies = [],
  error,
  onSend,
  onAskStop,
  onStop,
}: {
  projectId: number
  /** A task runs: a Task message then waits as a queued card. */
  running: boolean
  /** The running task's number, once the loop has given it one. */
  runningTask?: number | null
  /**
   * A build from the Queue panel runs: the core refuses a Task message until it ends (its task lock), so Send
   * is disabled in Task mode and says why before anything is typed; Ask mode still answers.
   */
  building?: boolean
  /** A task runs or an Ask answer is being written: Stop (and Esc) end it. */
  stoppable: boolean
  /** The task waiting for an answer: the next Task message answers it (and says so). */
  pending: PendingQuestionDto | null
  /** The answers the waiting question names: one click sends one (the card's quick replies, here too). */
  replies?: readonly string[]
  error: unknown
  /** Sends; the returned promise keeps Send busy until the call settles. */
  onSend(
    mode: ChatMode,
    text: string,
    answering: number | undefined,
    images?: PickedImage[],
  ): Promise<unknown>
  /** Asks before stopping (Esc); the Stop button stops at once. */
  onAskStop(): void
  onStop(): Promise<unknown>
}) {
  const mode = useChatUi((s) => s.mode[projectId] ?? 'task')
  const text = useChatUi((s) => s.draft[projectId] ?? '')
  const focus = useChatUi((s) => s.focus[projectId] ?? 0)
  const { setMode, setDraft } = useChatUi.getState()
  const box = useRef<HTMLTextAreaElement>(null)
  useChatKeys(box, stoppable, onAskStop)
  // A request to focus the box (Edit and resend, Answer …); one made before this box was drawn is not repeated.
  const focusSeen = useRef(focus)
  useEffect(() => {
    if (focus !== focusSeen.current) box.current?.focus()
    focusSeen.current = focus
  }, [focus])
  // A project opens with the keyboard in its message box, unless focus is already somewhere in the page (given
  // back to a card's button on the way back from Settings) or in a dialog.
  useEffect(() => {
    const active = document.activeElement
    if (!active || active === document.body || !active.closest('main, [role="dialog"], [role="alertdialog"]'))
      box.current?.focus()
  }, [projectId])
  const intent = composerIntent({ mode, pending, running, runningTask, building })
  const blockedByBuild = intent.kind === 'build'
  const capError = useCostCapCheck(projectId).error
  const length = lengthCheck(text)
  const pictures = useComposerImages()
  const blindModel = useBlindModel(pictures.images.length > 0)
  const sending = useSingleFlight(() =>
    onSend(
      mode,
      text.trim(),
      intent.kind === 'answer' ? pending?.task : undefined,
      pictures.images.length ? pictures.images : undefined,
    ).then(pictures.clear),
  )
  const noModel = useNoModelReason(projectId, mode)
  const hostLost = useHostLostReason()
  const blockedReason =
    hostLost ??
    noModel ??
    (blockedByBuild
      ? 'A build is running: stop it or wait for it to end, then send this task (or switch to Ask).'
      : mode === 'ask' && pictures.images.length
        ? 'Ask mode answers from text only: switch to Task to send images, or remove them.'
        : (length?.reason ?? null))
  const canSend = !!text.trim() && !sending.busy && !blockedReason && !(mode === 'task' && capError)

  const onKey = (e: KeyboardEvent) => {
    if (e.key === surfaceKeys.send.key && (e.ctrlKey || e.metaKey)) {
      e.preventDefault()
      if (canSend) void sending.run()
    }
  }

  return (
    <div
      className="composer"
      onDragOver={(e) => {
        if (e.dataTransfer.types.includes('Files')) e.preventDefault()
      }}
      onDrop={(e) => {
        const files = [...e.dataTransfer.files]
        if (!files.length) return
        e.preventDefault()
        void pictures.add(files)
      }}
    >
      <div className={cx('composer-intent', `composer-intent-${intent.kind}`)} data-testid="composer-intent">
        <p className="composer-intent-text">
          <strong className="composer-intent-label">{intent.label}</strong>{' '}
          <span className="composer-intent-detail" data-testid={legacyTestId[intent.kind]}>
            {intent.detail}
          </span>
        </p>
        {intent.kind === 'answer' && pending ? (
          <DismissQuestionButton projectId={projectId} task={pending.task} label="Dismiss the question" />
        ) : null}
        {intent.kind === 'answer' && pending && replies.length ? (
          <QuickReplies
            projectId={projectId}
            task={pending.task}
            options={replies}
            label={`Quick replies to task ${pending.task}’s question`}
          />
        ) : null}
      </div>
      <textarea
        ref={box}
        aria-label="Message"
        className="composer-input"
        rows={1}
        value={text}
        placeholder={intent.placeholder}
        aria-describedby={length ? `composer-count-${projectId}` : undefined}
        onChange={(e) => setDraft(projectId, e.target.value)}
        onKeyDown={onKey}
        onPaste={(e) => {
          const files = [...e.clipboardData.files]
          if (!files.length) return
          e.preventDefault()
          void pictures.add(files)
        }}
      />
      {noModel && !hostLost ? <ChooseModelFirst reason={noModel} /> : null}
      {mode === 'task' ? <ComposerEngineWarning projectId={projectId} /> : null}
      {mode === 'task' ? <ComposerCapWarning projectId={projectId} /> : null}
      <ComposerImageList
        images={pictures.images}
        error={pictures.error}
        blindModel={mode === 'task' ? blindModel : null}
        onRemove={pictures.remove}
      />
      {length ? (
        <p
          id={`composer-count-${projectId}`}
          className={cx('composer-count', length.over > 0 && 'composer-count-over')}
          data-testid="composer-counter"
          aria-live="polite"
        >
          {length.count}
          {length.reason ? ': shorten it to send.' : null}
        </p>
      ) : null}
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
        <AttachImagesButton
          count={pictures.images.length}
          onFiles={(files) => void pictures.add(files)}
          disabledReason={
            mode === 'ask' ? 'Ask mode answers from text only: switch to Task to attach images.' : null
          }
        />
        <span className="hint">
          <kbd>{keyLabel(surfaceKeys.send)}</kbd> to send
          {stoppable ? (
            <>
              , <kbd>Esc</kbd> to stop
            </>
          ) : null}
        </span>
        {stoppable ? (
          <ActionButton icon={<Square size={14} aria-hidden />} onAction={onStop}>
            Stop
          </ActionButton>
        ) : null}
        <Button
          variant="primary"
          icon={<Send size={14} aria-hidden />}
          onClick={() => void sending.run()}
          aria-busy={sending.busy || undefined}
          disabled={!blockedReason && !canSend}
          disabledReason={blockedReason}
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

/** The test ids the chat's tests knew these lines by, kept on their detail. */
const legacyTestId: Record<string, string | undefined> = {
  build: 'composer-building',
  queue: 'composer-queueing',
  answer: 'composer-answering',
}
