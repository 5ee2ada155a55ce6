import type { TaskCardDto } from '../../../../shared/api/chat'
import { Badge } from '../../ui'
import { markerTone } from '../plan'

const toneOf = (marker: string) => markerTone[marker as keyof typeof markerTone] ?? 'neutral'

/** The requirements the parser found, each with its marker as a coloured chip, and what must be preserved. */
export function TaskRequirements({ card }: { card: TaskCardDto }) {
  if (!card.requirements.length && !card.preserve.length) return null
  return (
    <div className="task-card-requirements">
      {card.requirements.length ? (
        <ul aria-label="Requirements">
          {card.requirements.map((r, i) => (
            <li key={i}>
              <Badge tone={toneOf(r.marker)}>
                {r.marker}
                {r.count !== null ? ` ${r.count}` : ''}
              </Badge>
              {r.description}
            </li>
          ))}
        </ul>
      ) : null}
      {card.preserve.length ? (
        <p className="task-card-preserve">
          <Badge tone={markerTone.PRESERVED}>PRESERVE</Badge>
          {card.preserve.join('; ')}
        </p>
      ) : null}
    </div>
  )
}
