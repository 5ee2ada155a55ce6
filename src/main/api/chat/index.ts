import type { chatCalls } from '../../../shared/api/chat'
import { AppError } from '../../../shared/errors'
import { checkImage } from '../../attachments'
import { ChatRecordsRepo } from '../../store/chatRecordsRepo'
import { ConversationsRepo } from '../../store/conversationsRepo'
import { RunJournal } from '../../tasks/runJournal'
import type { Handlers } from '../types'
import { ChatAsk } from './ask'
import { ChatCards } from './cards'
import type { ChatContext, ChatDeps } from './context'
import { followLoop, type ChatParts } from './followLoop'
import { historyHandlers } from './history'
import { ChatQuestion } from './question'
import { ChatQueue } from './queued'

export type { ChatDeps } from './context'

/**
 * The project chat: conversations, paged history, and `chat.send`, which records the message and starts the task
 * through the same TaskRunner as `tasks.start` (Task mode) or answers it with one model call (Ask mode).
 */
export function createChatHandlers(deps: ChatDeps): Handlers<typeof chatCalls> {
  const repo = new ConversationsRepo(deps.db)
  const records = new ChatRecordsRepo(deps.db)
  const chat: ChatContext = {
    deps,
    repo,
    records,
    changed: (projectId, conversationId) => deps.events.emit('chat.changed', { projectId, conversationId }),
  }
  const journal = runJournal(chat)
  const cards = new ChatCards(chat)
  const question = new ChatQuestion(chat)
  const parts: ChatParts = {
    chat,
    journal,
    cards,
    queue: new ChatQueue(chat, cards),
    ask: new ChatAsk(chat),
    question,
  }

  // An answer left empty by a host that died while writing it would otherwise say "writing…" for ever.
  repo.cutShortAnswers('Cut short: Ralph was closed while answering.')
  repo.cutShortStarts('Cut short: Ralph was closed while starting this task.')
  followLoop(parts)

  return {
    ...historyHandlers(chat, question, (runId) => journal.unwritten(runId)),
    ...messageHandlers(parts),
    ...parts.queue.handlers(),
    ...question.handlers(),
  }
}

/** The journal of each chat run (its iterations' text and events), written beside the card's run. */
function runJournal({ deps, repo, records }: ChatContext): RunJournal {
  return new RunJournal({
    runOf: (projectId, task) => {
      const path = deps.projectPath(projectId)
      return path === null ? null : repo.latestRunId(path, task)
    },
    write: (runId, entry) => {
      try {
        records.addJournal(runId, entry)
      } catch (err) {
        // The card loses a line of its history; the task itself goes on.
        deps.logger.error(`the journal of run ${runId} could not be written`, err)
      }
    },
  })
}

/** Sending (Ask answers at once; Task starts, or queues behind the running task), stopping an answer, resuming. */
function messageHandlers({
  chat,
  cards,
  queue,
  ask,
  question,
}: ChatParts): Pick<Handlers<typeof chatCalls>, 'chat.send' | 'chat.stopAnswer' | 'chat.resume'> {
  const { deps, repo, changed } = chat
  return {
    'chat.send': async ({ projectId, mode, text, maxCostUsd, maxTokens, answering, attachments }, ctx) => {
      const caps = { maxCostUsd, maxTokens }
      const project = ctx.resolveProject(projectId)
      const conversation = repo.current(projectId)
      if (mode === 'ask' && attachments?.length)
        throw new AppError(
          'invalid-input',
          'Ask mode answers from text only: switch to Task mode to send images, or remove them.',
        )
      if (mode === 'ask') return ask.send(project, conversation.id, text)
      // Checked by their bytes before anything is recorded: a bad image answers this call, naming it.
      const images = await Promise.all(
        (attachments ?? []).map((a) => checkImage(a.name, Buffer.from(a.base64, 'base64'))),
      )
      if (deps.building(projectId))
        throw new AppError(
          'busy',
          'A build is running in this project (see the Queue tab): a Task message cannot start until it ends or you stop it. Ask mode still answers.',
        )
      // A waiting question is answered only on purpose, and an answer to one that closed starts nothing.
      await question.checkAnswering(project, answering)
      // While a task runs here, the message waits its turn as a queued card. Otherwise it starts at once, even
      // with older queued cards left (they wait for the end of a task, or for Start now): it may be an answer.
      const queued = deps.runner.isRunning(projectId)
      const messageId = repo.add(conversation.id, { kind: 'user', mode, text })
      const cardId = repo.add(conversation.id, { kind: 'task', queued, text: queued ? text : '' })
      if (queued) {
        queue.hold(cardId, caps, images)
        changed(projectId, conversation.id)
        return { conversationId: conversation.id, messageId, queued: true }
      }
      try {
        await cards.start(project, conversation.id, cardId, text, caps, images)
      } catch (err) {
        // Refused (busy elsewhere, no provider): the call says why and the chat keeps no half-started card.
        repo.remove([messageId, cardId])
        throw err
      }
      changed(projectId, conversation.id)
      return { conversationId: conversation.id, messageId, queued: false }
    },
    'chat.stopAnswer': async ({ projectId }, ctx) => {
      ctx.resolveProject(projectId)
      return ask.stop(projectId)
    },
    'chat.resume': async ({ projectId, runId }, ctx) => {
      const project = ctx.resolveProject(projectId)
      if (deps.runner.isRunning(projectId)) {
        throw new AppError('busy', 'A task is running: wait for it to finish (or stop it), then resume.')
      }
      const interrupted = await deps.runner.interruptedTask(project)
      if (interrupted.runId !== runId) {
        throw new AppError(
          'not-found',
          `That run is not the interrupted task: only the project's last task (task ${interrupted.task}) can be resumed.`,
        )
      }
      const card = cardOfRun(repo, projectId, runId)
      if (!card) {
        throw new AppError(
          'not-found',
          `Task ${interrupted.task} has no card in this project's chat (it ran from the command line): resume it with ralph run --resume.`,
        )
      }
      await cards.resume(project, card, interrupted.task, runId)
      changed(projectId, card.conversationId)
      return { task: interrupted.task }
    },
  }
}

/** The card of a run in any of the project's conversations, or null. */
function cardOfRun(repo: ConversationsRepo, projectId: number, runId: number) {
  for (const conversation of repo.list(projectId)) {
    const messageId = repo.cardForRun(conversation.id, runId)
    if (messageId !== null) return { conversationId: conversation.id, messageId }
  }
  return null
}
