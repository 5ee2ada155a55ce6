import { useMutation, useQueryClient } from '@tanstack/react-query'
import { AlertTriangle } from 'lucide-react'
import { useState, type FormEvent } from 'react'
import { useClient } from '../../app/ClientProvider'
import { FieldError } from '../../app/FieldError'
import { callKey, useCall } from '../../app/queries'
import { Button } from '../../ui'
import { parseCostCap, parseTokenCap, useCostCaps } from './costCap'
import './capWarning.css'

/** "3", "$0.15": dollars per 1M tokens as typed, or null when it is not a price. */
function rate(text: string): number | null {
  const t = text.trim().replace(/^\$/, '')
  const n = t === '' ? Number.NaN : Number(t)
  return Number.isFinite(n) && n >= 0 ? n : null
}

/**
 * Before a capped task is sent: its model has no price, so the cost cap would count nothing (issue 37). Says so, and
 * offers what makes a cap hold: the model's price (the same override `ralph config set price` writes) or a token cap
 * the loop counts instead.
 */
export function ComposerCapWarning({ projectId }: { projectId: number }) {
  const capped = parseCostCap(useCostCaps((s) => s.text[projectId] ?? '')).usd !== undefined
  const price = useCall('prices.forProject', { projectId }, { enabled: capped }).data
  if (!capped || !price || price.priced !== false || !price.model) return null
  return <CapWarning projectId={projectId} model={price.model} />
}

function CapWarning({ projectId, model }: { projectId: number; model: string }) {
  const tokenText = useCostCaps((s) => s.tokens[projectId] ?? '')
  const tokenCap = parseTokenCap(tokenText)
  return (
    <section className="composer-cap-warning" role="group" aria-label="Cost cap warning">
      <p className="composer-cap-warning-text" role="status">
        <AlertTriangle size={14} aria-hidden />
        <span>
          The cost cap can’t be enforced: no price for {model}.{' '}
          {tokenCap.tokens !== undefined
            ? `The token cap of ${tokenCap.tokens.toLocaleString('en-US')} tokens stops the task instead.`
            : 'Enter its price, or cap the task’s tokens instead.'}
        </span>
      </p>
      <div className="composer-cap-warning-fixes">
        <PriceForm model={model} />
        <label className="composer-cap-field" title="Prompt and answer tokens of the task's model calls.">
          <span>or a token cap</span>
          <input
            aria-label="Token cap in tokens"
            inputMode="numeric"
            placeholder="e.g. 50k"
            size={7}
            value={tokenText}
            aria-invalid={tokenCap.error !== null || undefined}
            aria-describedby={tokenCap.error ? `cost-cap-error-${projectId}` : undefined}
            onChange={(e) => useCostCaps.getState().setTokens(projectId, e.target.value)}
          />
        </label>
      </div>
    </section>
  )
}

/** The model's input and output price, saved as the user's price for it (Settings and the CLI show it as "yours"). */
function PriceForm({ model }: { model: string }) {
  const client = useClient()
  const queryClient = useQueryClient()
  const [input, setInput] = useState('')
  const [output, setOutput] = useState('')
  const [invalid, setInvalid] = useState<string | null>(null)
  const save = useMutation({
    mutationFn: (p: { input: number; output: number }) => client.call('prices.set', { model, ...p }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: callKey('prices.forProject') }),
  })
  const submit = (e: FormEvent) => {
    e.preventDefault()
    const inRate = rate(input)
    const outRate = rate(output)
    if (inRate === null || outRate === null) {
      setInvalid('Enter both prices as dollars per 1M tokens, e.g. 3 and 15 (0 or more).')
      return
    }
    setInvalid(null)
    save.mutate({ input: inRate, output: outRate })
  }
  return (
    <form className="composer-cap-price" onSubmit={submit} aria-label={`Price of ${model}`}>
      <span>Price per 1M tokens: $</span>
      <input
        aria-label="Input price in dollars per 1M tokens"
        inputMode="decimal"
        placeholder="input"
        size={5}
        value={input}
        onChange={(e) => setInput(e.target.value)}
      />
      <span>in, $</span>
      <input
        aria-label="Output price in dollars per 1M tokens"
        inputMode="decimal"
        placeholder="output"
        size={5}
        value={output}
        onChange={(e) => setOutput(e.target.value)}
      />
      <span>out</span>
      <Button type="submit" size="sm" aria-busy={save.isPending || undefined}>
        Save price
      </Button>
      {invalid ? (
        <p className="field-error" role="alert">
          {invalid}
        </p>
      ) : null}
      <FieldError error={save.error} />
    </form>
  )
}
