import type { chatCalls } from '../../../shared/api/chat'
import { AppError } from '../../../shared/errors'
import { rolledBackTasks } from '../../../shared/tasksOnDisk'
import { runInProject, taskDetail } from '../../tasks/taskDetail'
import type { JournalRow } from '../../store'
import { snapshotHistory } from '../snapshots'
import type { Handlers } from '../types'
import type { ChatContext } from './context'
import type { ChatQuestion } from './question'

/** A card left waiting when nothing waits for its answer any more (found on reading the chat). */
const NO_LONGER_WAITING =
  'Ended without an answer: Ralph no longer waits for it (the project went back to before the question, or a newer task started). The snapshot from before this task is kept.'

type HistoryCalls = 'chat.conversations' | 'chat.newConversation' | 'chat.history' | 'chat.taskDetail'

/** Reading the chat: its conversations, a page of one's history (answers with their usage), a card's detail. */
export function historyHandlers(
  { deps, repo, records, changed }: ChatContext,
  question: ChatQuestion,
  /** The running task's text not written yet, shown with what is (RunJournal.unwritten). */
  unwritten: (runId: number) => JournalRow[] = () => [],
): Pick<Handlers<typeof chatCalls>, HistoryCalls> {
  return {
    'chat.conversations': async ({ projectId }, ctx) => {
      ctx.resolveProject(projectId)
      const current = repo.current(projectId)
      return { current, items: repo.list(projectId) }
    },
    'chat.newConversation': async ({ projectId }, ctx) => {
      ctx.resolveProject(projectId)
      const conversation = repo.startNew(projectId)
      changed(projectId, conversation.id)
      return conversation
    },
    'chat.history': async ({ projectId, conversationId, before, limit }, ctx) => {
      const project = ctx.resolveProject(projectId)
      // A task left running by a process that died shows as Interrupted from the first page read after it.
      if (before === undefined) await deps.runner.isRunningAnywhere(project)
      // A card waits for an answer only while its task does; the first page says which task that is.
      // (Not while a task of this chat runs: it may be asking its question right now.)
      if (before === undefined && !deps.runner.isRunning(projectId)) {
        await question.closeStale(project, NO_LONGER_WAITING)
      }
      const pending = before === undefined ? await question.pending(project) : undefined
      const conversation = conversationId === undefined ? repo.current(projectId) : repo.get(conversationId)
      if (!conversation || conversation.projectId !== projectId) {
        throw new AppError('not-found', `No conversation ${conversationId} in this project.`)
      }
      const page = repo.history(conversation.id, { before, limit })
      const answers = page.messages.filter((m) => m.kind === 'answer').map((m) => m.id)
      const usage = records.answerUsage(answers)
      const rolledBack = page.messages.some((m) => m.card?.status === 'complete')
        ? rolledBackTasks(await snapshotHistory(ctx, projectId))
        : new Set<number>()
      return {
        conversationId: conversation.id,
        ...page,
        ...(pending === undefined ? {} : { pendingQuestion: pending }),
        messages: page.messages.map((m) => {
          if (m.kind === 'answer') return { ...m, usage: usage.get(m.id) ?? null }
          const task = m.card?.status === 'complete' ? m.card.task : null
          return task !== null && rolledBack.has(task) ? { ...m, card: { ...m.card!, rolledBack: true } } : m
        }),
      }
    },
    'chat.taskDetail': async ({ projectId, runId }, ctx) => {
      const project = ctx.resolveProject(projectId)
      if (!runInProject(deps.db, runId, project.path)) {
        throw new AppError('not-found', `No run ${runId} in this project.`)
      }
      return { runId, ...taskDetail(deps.db, runId, [...records.journal(runId), ...unwritten(runId)]) }
    },
  }
}
