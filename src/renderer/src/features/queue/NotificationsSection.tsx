import { useId } from 'react'
import { errorMessage } from '../../app/queries'
import { Badge } from '../../ui'
import { timeAgo } from '../projects'
import { formatWhen } from '../../../../shared/format'
import { withoutCliHints } from './appText'
import { useQueueNotifications } from './queries'

/** A notification file's event (`<event>-<time>.md`) in words. */
const eventWords: Record<string, string> = {
  escalation: 'Escalated',
  'needs-human': 'Needs you',
  approval: 'Approval',
  'budget-warn': 'Budget warning',
  'budget-stop': 'Budget reached',
  complete: 'Build complete',
}

/** `.ralph/notifications/*.md`, newest first: escalations and finished builds, written by `ralph build`. */
export function NotificationsSection({ projectId }: { projectId: number }) {
  const notes = useQueueNotifications(projectId)
  const id = useId()
  const items = notes.data?.items ?? []
  return (
    <section className="queue-section" aria-labelledby={`${id}-title`}>
      <h3 id={`${id}-title`} className="queue-section-title">
        Notifications
      </h3>
      {notes.error ? (
        <p className="field-error" role="alert">
          Could not read .ralph/notifications: {errorMessage(notes.error)}
        </p>
      ) : items.length === 0 ? (
        <p className="muted queue-note">
          None yet. Escalations and finished builds are written to <code>.ralph/notifications/</code>.
        </p>
      ) : (
        <ul className="queue-notifications" aria-label="Notifications">
          {items.map((n) => (
            <li key={n.file} className="queue-notification" aria-label={n.title}>
              <details>
                <summary>
                  <Badge tone={n.event.includes('escalat') ? 'bad' : 'info'}>
                    {eventWords[n.event] ?? n.event}
                  </Badge>
                  <span className="queue-notification-title">{n.title}</span>
                  <time className="muted" dateTime={new Date(n.at).toISOString()} title={formatWhen(n.at)}>
                    {timeAgo(n.at)}
                  </time>
                </summary>
                {n.body ? <pre className="queue-notification-body">{withoutCliHints(n.body)}</pre> : null}
              </details>
            </li>
          ))}
        </ul>
      )}
      {notes.data && notes.data.total > items.length ? (
        <p className="muted queue-note">
          {notes.data.total - items.length} older ones are in <code>.ralph/notifications/</code>.
        </p>
      ) : null}
    </section>
  )
}
