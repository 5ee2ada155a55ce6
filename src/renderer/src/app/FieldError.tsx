import { errorMessage } from './queries'

/** What went wrong with the user's last action, where they acted (announced: role="alert"); nothing without one. */
export function FieldError({ error }: { error: unknown }) {
  if (!error) return null
  return (
    <p className="field-error" role="alert">
      {errorMessage(error)}
    </p>
  )
}
