import type { EngineChoice } from '../../../../shared/api/engines'
import type { LocalServer, ProviderSettings, ProviderState } from '../../../../shared/settings'

/**
 * Why nothing can be sent yet, or null: a message needs a model (Ask always; Task unless the project's engine is
 * an agent CLI, which brings its own). Unknown while the state loads: not blocked on a guess.
 */
export function noModelReason(
  state: ProviderState | undefined,
  mode: 'task' | 'ask',
  engine: EngineChoice | undefined,
): string | null {
  if (!state || state.effective) return null
  if (mode === 'task' && engine !== undefined && engine !== 'built-in') return null
  if (state.overriddenByEnv.length)
    return `The model settings from the environment (${state.overriddenByEnv.join(', ')}) are not usable: fix them or set a model in Settings → Model provider.`
  return 'Choose a model first: Settings → Model provider.'
}

/** A local server found on this machine, as settings to save at once: the first one offering a model. */
export function localOffer(
  servers: LocalServer[] | undefined,
): { server: LocalServer; settings: ProviderSettings } | null {
  const server = servers?.find((s) => s.models.length > 0)
  if (!server) return null
  return {
    server,
    settings: {
      provider: server.provider ?? 'openai-compatible',
      model: server.models[0]!,
      baseUrl: server.baseUrl,
    },
  }
}
