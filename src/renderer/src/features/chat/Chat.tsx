import { History, MessageSquarePlus } from 'lucide-react'
import { useEffect, useMemo, useState } from 'react'
import { useClient } from '../../app/ClientProvider'
import { askForNotificationsOnce } from '../../app/notifications'
import { errorMessage } from '../../app/queries'
import { routeHash } from '../../app/routes'
import {
  ActionButton,
  Banner,
  Button,
  ConfirmDialog,
  EmptyState,
  Menu,
  MenuContent,
  MenuItem,
  MenuTrigger,
} from '../../ui'
import { useProjectBuild } from '../queue'
import { useRunning, useStopTask } from '../../app/projectQueries'
import { BuildStrip } from './BuildStrip'
import { useChatUi } from './chatUi'
import { Composer } from './Composer'
import { pendingReplies } from './composerIntent'
import { ConversationLog } from './ConversationLog'
import { subscribeChatDeltas } from './liveAnswers'
import { subscribeLiveTaskText } from './liveTaskText'
import { NewConversationDialog } from './NewConversationDialog'
import { useConversations, useHistory, useNewConversation, useSend, useStopAnswer } from './queries'
import { StopQueuePrompt } from './StopQueuePrompt'
import type { PickedImage } from './composerImages'
import './chat.css'
import './composer.css'

const EXAMPLES = [
  'Create a single-page site for a coffee shop with its menu and opening hours',
  'Add a dark mode toggle to the header',
  'Fix the failing tests and explain what was wrong',
]

/**
 * The project's chat: every Task message is a live task card, every Ask message an answer. Everything shown
 * comes back from SQLite after a reload.
 */
export function Chat({ projectId }: { projectId: number }) {
  const client = useClient()
  useEffect(() => subscribeChatDeltas(client), [client])
  useEffect(() => subscribeLiveTaskText(client), [client])
  const viewing = useChatUi((s) => s.viewing[projectId] ?? null)
  const history = useHistory(projectId, viewing)
  const conversations = useConversations(projectId)
  const lockHeld = useRunning(projectId)
  const build = useProjectBuild(projectId, lockHeld)
  // A panel build holds the task lock, so `tasks.running` says yes while it runs: that is the build, not a task
  // this chat can stop or queue behind (the core refuses a Task message until the build ends).
  const running = lockHeld && !build.running
  const send = useSend(projectId)
  const stopTask = useStopTask(projectId)
  const stopAnswer = useStopAnswer(projectId)
  const startNew = useNewConversation(projectId)
  const [scrollSignal, setScrollSignal] = useState(0)
  const [confirmStop, setConfirmStop] = useState(false)
  const [askNew, setAskNew] = useState(false)
  const [chatEl, setChatEl] = useState<HTMLElement | null>(null)

  const messages = useMemo(() => history.data?.pages.flatMap((p) => p.messages) ?? [], [history.data])
  // The project's task waiting for an answer, whichever conversation its card is in (the core says which).
  const pending = history.data?.pages[0]?.pendingQuestion ?? null
  // Queued cards have not started: the running task is the newest card that has.
  const newest = messages.find((m) => m.kind === 'task' && m.card?.status !== 'queued')?.card
  const runningTask =
    newest && (newest.status === 'running' || newest.status === 'starting') ? newest.task : null
  const past = (conversations.data?.items ?? []).filter((c) => !c.current)
  // An Ask answer still being written has neither text nor error yet.
  const answering = messages.some((m) => m.kind === 'answer' && !m.text && !m.error)
  const stop = running ? stopTask : stopAnswer

  const onSend = async (
    mode: 'task' | 'ask',
    text: string,
    answering: number | undefined,
    images?: PickedImage[],
  ) => {
    // Sending a task is the gesture a browser wants before it may show "task complete" later.
    if (mode === 'task') askForNotificationsOnce()
    await send.mutateAsync({ mode, text, queue: mode === 'task' && running, answering, images })
    useChatUi.getState().setDraft(projectId, '')
    setScrollSignal((n) => n + 1)
  }
  const newConversation = () => startNew.mutateAsync().then(() => useChatUi.getState().view(projectId, null))

  return (
    <section className="chat" aria-label="Chat" ref={setChatEl}>
      <div className="chat-toolbar">
        {viewing === null ? (
          // The title comes from the first message the user wrote; notices alone (a rollback) give none.
          <span className="muted">
            {messages.some((m) => m.kind === 'user') ? conversations.data?.current.title : null}
          </span>
        ) : (
          <Banner tone="info">
            A past conversation: read only.{' '}
            <button className="link" onClick={() => useChatUi.getState().view(projectId, null)}>
              Back to the current conversation
            </button>
          </Banner>
        )}
        <div className="chat-toolbar-actions">
          {past.length ? (
            <Menu modal={false}>
              <MenuTrigger asChild>
                <Button size="sm" variant="ghost" icon={<History size={14} aria-hidden />}>
                  Past conversations
                </Button>
              </MenuTrigger>
              {/* Kept inside the chat column: it never covers the sidebar, however long a title is. */}
              <MenuContent
                className="past-conversations"
                collisionBoundary={chatEl}
                collisionPadding={8}
                aria-label="Past conversations"
              >
                {past.map((c) => (
                  <MenuItem
                    key={c.id}
                    title={c.title}
                    onSelect={() => useChatUi.getState().view(projectId, c.id)}
                  >
                    <span className="past-conversation-title">{c.title}</span>{' '}
                    <span className="past-conversation-count">({c.messageCount})</span>
                  </MenuItem>
                ))}
              </MenuContent>
            </Menu>
          ) : null}
          <ActionButton
            size="sm"
            variant="ghost"
            icon={<MessageSquarePlus size={14} aria-hidden />}
            disabledReason={running ? 'Wait for the running task to finish.' : null}
            // A question waiting for an answer is settled first: a new conversation never hides it.
            onAction={() => (pending ? setAskNew(true) : newConversation())}
          >
            New conversation
          </ActionButton>
        </div>
      </div>
      <div role="log" aria-label="Conversation" className="chat-log">
        {history.error ? (
          <Banner tone="error">{errorMessage(history.error)}</Banner>
        ) : history.isPending ? (
          <p className="muted chat-loading">Loading the conversation…</p>
        ) : messages.length === 0 ? (
          <EmptyState title="Tell Ralph what to build">
            <p>
              Each message in Task mode becomes a task: Ralph plans it, changes the files in fresh iterations,
              checks the result, and takes a snapshot before and after so you can roll it back. Ask mode
              answers questions without changing anything.
            </p>
            <ul className="chat-examples">
              {EXAMPLES.map((example) => (
                <li key={example}>
                  <button
                    className="chat-example"
                    onClick={() => useChatUi.getState().setDraft(projectId, example)}
                  >
                    {example}
                  </button>
                </li>
              ))}
            </ul>
            <p>
              Not sure what to build yet?{' '}
              <a href={routeHash({ page: 'project', projectId, view: 'brainstorm' })}>Brainstorm it first</a>:
              a guided session that ends in a VISION.md and a ROADMAP.md.
            </p>
          </EmptyState>
        ) : (
          <ConversationLog
            messages={messages}
            projectId={projectId}
            hasOlder={!!history.hasNextPage}
            loadOlder={() => void (history.isFetchingNextPage ? null : history.fetchNextPage())}
            scrollSignal={scrollSignal}
          />
        )}
      </div>
      <BuildStrip projectId={projectId} build={build} />
      {viewing === null ? (
        <StopQueuePrompt projectId={projectId} messages={messages} running={running} />
      ) : null}
      {viewing === null ? (
        <Composer
          projectId={projectId}
          running={running}
          runningTask={runningTask}
          building={build.running}
          stoppable={running || answering}
          pending={pending}
          replies={pendingReplies(messages, pending)}
          error={send.error ?? stop.error}
          onSend={onSend}
          // A task asks first (it may have done much); an answer stops at once.
          onAskStop={() => (running ? setConfirmStop(true) : stopAnswer.mutate())}
          onStop={() => stop.mutateAsync()}
        />
      ) : null}
      {pending ? (
        <NewConversationDialog
          open={askNew}
          onOpenChange={setAskNew}
          projectId={projectId}
          pending={pending}
          onEnded={newConversation}
        />
      ) : null}
      <ConfirmDialog
        open={confirmStop && running}
        onOpenChange={setConfirmStop}
        title="Stop the running task?"
        description="Ralph stops at once. The snapshot taken before the task stays, so you can roll back to it."
        confirmLabel="Stop task"
        onConfirm={() => stopTask.mutate()}
      />
    </section>
  )
}
