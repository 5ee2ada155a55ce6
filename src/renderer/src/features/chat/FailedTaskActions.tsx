import { PencilLine, RefreshCw, Settings } from 'lucide-react'
import type { ChatMessageDto, TaskCardDto } from '../../../../shared/api/chat'
import { FieldError } from '../../app/FieldError'
import { useRunning } from '../../app/projectQueries'
import { routeHash } from '../../app/routes'
import { ActionButton, Button } from '../../ui'
import { useChatUi } from './chatUi'
import { EngineSettingsLink } from './EngineSettingsLink'
import { useCardEngine } from './engineTask'
import { useHistory, useSend } from './queries'

/** The message that asked for a card's task: the user's message just before the card (history is newest first). */
export function requestOf(messages: ChatMessageDto[], card: TaskCardDto): string | null {
  const at = messages.findIndex(
    (m) => m.kind === 'task' && (m.card === card || (card.runId !== null && m.card?.runId === card.runId)),
  )
  if (at < 0) return null
  return messages.slice(at + 1).find((m) => m.kind === 'user')?.text ?? null
}

/**
 * A failed task offers a way on: Retry (the same message as a new task), Edit and resend (the message back in the
 * box), and for a provider error the way to Settings.
 */
export function FailedTaskActions({ card, projectId }: { card: TaskCardDto; projectId: number }) {
  const viewing = useChatUi((s) => s.viewing[projectId] ?? null)
  const history = useHistory(projectId, viewing)
  const send = useSend(projectId)
  const running = useRunning(projectId)
  const engine = useCardEngine(card, projectId)
  if (card.status !== 'failed') return null
  const messages = history.data?.pages.flatMap((p) => p.messages) ?? []
  const request = requestOf(messages, card)
  const provider = card.reason === 'provider'
  if (request === null && !provider) return null
  return (
    <div className="card-flow-actions" role="group" aria-label="After the failure">
      {request !== null ? (
        <>
          <ActionButton
            size="sm"
            icon={<RefreshCw size={13} aria-hidden />}
            title="Send the same message again as a new task"
            onAction={() => send.mutateAsync({ mode: 'task', text: request, queue: running })}
          >
            Retry
          </ActionButton>
          <Button
            size="sm"
            variant="ghost"
            icon={<PencilLine size={13} aria-hidden />}
            title="Put the message back in the message box to change it before sending"
            onClick={() => {
              const ui = useChatUi.getState()
              ui.view(projectId, null)
              ui.setMode(projectId, 'task')
              ui.setDraft(projectId, request)
              ui.focusComposer(projectId)
            }}
          >
            Edit and resend
          </Button>
        </>
      ) : null}
      {provider && engine ? <EngineSettingsLink engine={engine} /> : null}
      {provider && !engine ? (
        <a className="btn btn-ghost btn-sm" href={routeHash({ page: 'settings' })}>
          <Settings size={13} aria-hidden />
          Check the model provider in Settings
        </a>
      ) : null}
      <FieldError error={send.error} />
    </div>
  )
}
