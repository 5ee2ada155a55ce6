import { routeHash } from '../../app/routes'
import { FieldError } from '../../app/FieldError'
import { ActionButton } from '../../ui'
import { useProjectEngine } from '../engines'
import { localOffer, noModelReason } from './modelSetup'
import { ProviderForm } from './ProviderForm'
import { useLocalServers, useProvider, useSaveProvider } from './queries'
import './settings.css'

/** Why the composer cannot send yet for lack of a model, or null (see noModelReason). */
export function useNoModelReason(projectId: number, mode: 'task' | 'ask'): string | null {
  const state = useProvider().data
  const engine = useProjectEngine(projectId).data?.engine
  return noModelReason(state, mode, engine)
}

/** "Use Ollama · llama3.1": saves the local server found, so a newcomer is one click from a working model. */
function UseLocalServer() {
  const servers = useLocalServers().data
  const save = useSaveProvider()
  const offer = localOffer(servers)
  if (!offer) return null
  return (
    <>
      <ActionButton
        size="sm"
        variant="primary"
        onAction={() => save.mutateAsync({ settings: offer.settings })}
      >
        {`Use ${offer.server.name} · ${offer.settings.model}`}
      </ActionButton>
      <FieldError error={save.error} />
    </>
  )
}

/** In place of the composer's send path while no model is set: what to do, with the local server found. */
export function ChooseModelFirst({ reason }: { reason: string }) {
  return (
    <div className="model-setup-note" role="status" data-testid="choose-model-first">
      <p>
        <strong>Choose a model first.</strong>{' '}
        {reason.startsWith('Choose a model first')
          ? 'Ralph needs a model to work on tasks and answer questions: '
          : `${reason} `}
        <a href={`${routeHash({ page: 'settings' })}`}>Settings → Model provider</a>
        {'.'}
      </p>
      <UseLocalServer />
    </div>
  )
}

/**
 * The first-run step on Projects: while no model is configured, the provider form itself (a local Ollama or LM
 * Studio found fills it in), so nothing is typed into a project that would fail for lack of a model.
 */
export function FirstRunSetup() {
  const state = useProvider().data
  if (!state || state.effective || state.overriddenByEnv.length) return null
  return (
    <section className="first-run" aria-labelledby="first-run-heading">
      <h2 id="first-run-heading" className="section-title">
        Choose a model first
      </h2>
      <p className="section-lead muted">
        Ralph needs a model for its tasks. Pick a provider and a model, or use the local server found on this
        machine; you can change it later in Settings.
      </p>
      <div className="row">
        <UseLocalServer />
      </div>
      <ProviderForm />
    </section>
  )
}
