import { FieldError } from '../../app/FieldError'
import { errorMessage } from '../../app/queries'
import { withoutCliHints } from './appText'

/** The core's refusal where the user acted, without the CLI's command hints (the core shares its words with it). */
export function AppFieldError({ error }: { error: unknown }) {
  return <FieldError error={error ? new Error(withoutCliHints(errorMessage(error))) : null} />
}
