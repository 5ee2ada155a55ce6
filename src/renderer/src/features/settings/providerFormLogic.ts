import type { EnvOverride, OverridableField, ProviderState } from '../../../../shared/settings'

/** The environment variable that overrides `field`, with the value calls use; undefined when none does. */
export function overrideFor(
  state: ProviderState | undefined,
  field: OverridableField,
): EnvOverride | undefined {
  return state?.envOverrides?.find((o) => o.field === field)
}

/**
 * What a field's note says when an environment variable overrides it: the effective value, where it comes from,
 * and what it hides ("from ANTHROPIC_API_KEY in the environment — overrides the stored key …a1b2").
 */
export function overrideText(o: EnvOverride): string {
  const where = `from ${o.envVar} in the environment`
  if (o.field === 'apiKey')
    return o.stored
      ? `Calls use the key ${o.value} ${where} — it overrides the stored key ${o.stored}. A key saved here is used once ${o.envVar} is unset.`
      : `Calls use the key ${o.value} ${where}. A key saved here is used once ${o.envVar} is unset.`
  if (o.stored === o.value) return `Calls use “${o.value}” ${where}, the same as stored.`
  return o.stored
    ? `Calls use “${o.value}” ${where} — it overrides the stored “${o.stored}”. What you save here is used once ${o.envVar} is unset.`
    : `Calls use “${o.value}” ${where}. What you save here is used once ${o.envVar} is unset.`
}

/**
 * A server that offers exactly one model fills the empty Model field with it (List models, Test connection); a
 * name the user typed is never replaced.
 */
export function withSingleModel<F extends { model: string }>(form: F, models: string[]): F {
  return models.length === 1 && form.model.trim() === '' ? { ...form, model: models[0]! } : form
}
