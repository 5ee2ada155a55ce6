import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useClient } from '../../app/ClientProvider'
import { FieldError } from '../../app/FieldError'
import { callKey, useCall } from '../../app/queries'
import { Button } from '../../ui'

/**
 * "Update prices from the internet" (off by default): the price list the cost and the cost cap use, downloaded
 * from genai-prices' published file when turned on and then once a day when Ralph starts, kept in Ralph's data
 * folder. Off: the list bundled with this version, which does not know models newer than it.
 */
export function PricesSetting() {
  const client = useClient()
  const queryClient = useQueryClient()
  const state = useCall('prices.updates', {}).data
  const done = (next: unknown) => queryClient.setQueryData(callKey('prices.updates', {}), next)
  const toggle = useMutation({
    mutationFn: (enabled: boolean) => client.call('prices.setUpdates', { enabled }),
    onSuccess: done,
  })
  const now = useMutation({ mutationFn: () => client.call('prices.updateNow', {}), onSuccess: done })
  if (!state) return null
  const busy = toggle.isPending || now.isPending
  return (
    <section className="section" aria-labelledby="prices-heading">
      <h2 id="prices-heading" className="section-title">
        Prices
      </h2>
      <p className="section-lead muted">
        A task’s cost and its cost cap use a price list bundled with this version of Ralph. A model newer than
        it has no price until you give one (<code>ralph config set price MODEL INPUT OUTPUT</code>, or the
        composer when a cost cap is set), or until the list is updated.
      </p>
      <div className="card prices-setting">
        <label className="prices-toggle">
          <input
            type="checkbox"
            checked={state.enabled}
            aria-busy={busy || undefined}
            onChange={(e) => toggle.mutate(e.target.checked)}
          />
          <span className="setting-label">Update prices from the internet</span>
        </label>
        <p className="hint">
          Downloads the current list from <code>{state.url}</code> when you turn this on, then once a day when
          Ralph starts, and keeps it in Ralph’s data folder; the next priced call uses it. Nothing is sent,
          only the file is fetched. Off: nothing is downloaded.
        </p>
        {state.enabled ? (
          <p className="hint" role="status" data-testid="prices-status">
            {state.fetchedAt !== null
              ? `In use: the list downloaded ${new Date(state.fetchedAt).toLocaleString()} (${state.models ?? 0} models of Anthropic, OpenAI, Google, xAI and DeepSeek).`
              : 'Not downloaded yet: the bundled list is in use.'}{' '}
            <Button size="sm" onClick={() => now.mutate()} aria-busy={now.isPending || undefined}>
              Update now
            </Button>
          </p>
        ) : null}
        {state.error ? (
          <p className="field-error" role="alert">
            {state.error}
          </p>
        ) : null}
        <FieldError error={toggle.error ?? now.error} />
      </div>
    </section>
  )
}
