import type { BrainstormDetail } from '../../../../shared/api/brainstorm'
import type { BrainstormStatements, BrainstormTheme } from '../../../../shared/brainstorm'

/** What every phase screen gets: the session, why it cannot act now (null: it can), and how to answer. */
export interface StepProps {
  projectId: number
  session: BrainstormDetail
  busy: string | null
  answer: (text: string, edits?: { themes?: BrainstormTheme[]; statements?: BrainstormStatements }) => void
}

export const choiceOf = (session: BrainstormDetail, id?: string) => {
  const p = session.pending
  return p?.kind === 'choice' && (id === undefined || p.id === id) ? p : null
}
export const openQuestion = (session: BrainstormDetail) =>
  session.pending?.kind === 'open' ? session.pending : null
