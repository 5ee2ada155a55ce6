import { Compass, Dices, Route, Wand2 } from 'lucide-react'
import type { ReactNode } from 'react'
import { Banner, Button, cx } from '../../ui'
import { errorMessage } from '../../app/queries'
import { splitLabel } from './ChoiceButtons'
import { useTechniques } from './queries'
import { choiceOf, type StepProps } from './types'

const icons: Record<string, ReactNode> = {
  'user-selected': <Compass size={18} aria-hidden />,
  'ai-recommended': <Wand2 size={18} aria-hidden />,
  random: <Dices size={18} aria-hidden />,
  progressive: <Route size={18} aria-hidden />,
}

/** TECHNIQUE: the four approaches as cards, then (user-selected) the technique library by category. */
export function TechniqueStep({ session, busy, answer }: StepProps) {
  const approach = choiceOf(session, 'technique')
  const category = choiceOf(session, 'category')
  return (
    <div className="bs-technique">
      {approach ? (
        <section aria-label="Approach">
          <h3>How shall we generate ideas?</h3>
          <div className="bs-approaches">
            {approach.options.map((o) => {
              const { name, detail } = splitLabel(o.label)
              return (
                <div
                  key={o.value}
                  className={cx('bs-card bs-approach', o.value === approach.default && 'is-default')}
                >
                  <div className="bs-approach-head">
                    {icons[o.value]}
                    <h4>{name}</h4>
                    {o.value === approach.default ? <span className="badge tone-accent">default</span> : null}
                  </div>
                  <p className="muted">{detail ? detail[0]!.toUpperCase() + detail.slice(1) + '.' : null}</p>
                  <Button
                    variant={o.value === approach.default ? 'primary' : 'secondary'}
                    aria-label={name}
                    disabledReason={busy}
                    onClick={() => answer(o.value)}
                  >
                    Choose
                  </Button>
                </div>
              )
            })}
          </div>
        </section>
      ) : null}
      <Library
        pick={category ? (c) => answer(c) : null}
        busy={busy}
        intro={
          category
            ? 'Pick the category to draw this session’s techniques from (the first four of it, in order).'
            : 'The library the facilitator draws lenses from. Choose “User-selected” to pick a category yourself.'
        }
      />
    </div>
  )
}

function Library({
  pick,
  busy,
  intro,
}: {
  pick: ((c: string) => void) | null
  busy: string | null
  intro: string
}) {
  const library = useTechniques()
  return (
    <section aria-label="Technique library" className="bs-library">
      <h3>Technique library</h3>
      <p className="muted">{intro}</p>
      {library.error ? <Banner tone="error">{errorMessage(library.error)}</Banner> : null}
      <ul className="bs-categories">
        {(library.data?.categories ?? []).map((c) => (
          <li key={c.name} className="bs-card bs-category" aria-label={c.name}>
            <div className="bs-category-head">
              <h4>{c.name}</h4>
              {pick ? (
                <Button size="sm" variant="primary" disabledReason={busy} onClick={() => pick(c.name)}>
                  Use {c.name}
                </Button>
              ) : null}
            </div>
            <p className="bs-techniques">{c.techniques.join(' · ')}</p>
          </li>
        ))}
      </ul>
    </section>
  )
}
