// One engine session's cost cap, held where every model call of the session passes: Ralph's credential proxy
// (credentialProxy.ts). Before a call is forwarded it is refused or bounded (proxyBudget.ts decides), and held at
// the most it can cost; as its answer passes, its usage is read (proxyUsage.ts) and its cost replaces the hold, so
// the next call — of this session or one running beside it — sees it. The engine's own stream is not needed: a call
// that has started can no longer run past the cap, nor can a turn of many calls (Codex reports usage per turn).
import type { IncomingHttpHeaders } from 'node:http'
import { promisify } from 'node:util'
import { brotliDecompress, gunzip, inflate } from 'node:zlib'
import { estimateCost, priceFor, type PriceOverrides } from '../llm'
import type { Logger } from '../workspace'
import { capReachedWords, decideCall } from './proxyBudget'
import { usageReader, type CallUsage, type ModelWire, type UsageReader } from './proxyUsage'
import { boundedRequest, callKind, readCallRequest } from './proxyWire'

/** The task's cost cap as a session starts. */
export interface SessionCostCap {
  capUsd: number
  /** What the task had spent before this session (its earlier iterations, the parse). */
  spentUsd: number
  /** The user's price table (`llm.prices`), over the catalog's. */
  prices?: PriceOverrides
}

/**
 * The cap held: a call was refused, or the calls so far reached it. `why`: the refusal's words. `calls`: what the
 * session's answered calls used (as the proxy read them), for an engine that never reports them itself (Codex
 * reports usage per turn, and a turn ended by a refusal reports none).
 */
export interface CapReached {
  capUsd: number
  spentUsd: number
  why: string | null
  calls: CallUsage[]
}

/** A model call the meter let through: its answer is read as it passes, then billed once. */
export interface MeteredCall {
  /** The answer's head came back; its body's chunks then go to `push` as they pass. */
  answered(status: number, contentType: string | undefined): void
  push(chunk: Buffer): void
  /** The call is over (answered, cut off, or never sent): billed, its hold released. Only the first call counts. */
  end(): void
}

export type Admission =
  | { refused: string }
  /** Forward `body` (bounded, or decoded: `decoded` says the content-encoding is gone) and meter the call. */
  | { body: Buffer; decoded: boolean; call: MeteredCall }

/** What the credential proxy asks of a session's meter. */
export interface CallMeter {
  /** Whether a request is a model call, whose body is read before it is forwarded. */
  meters(method: string | undefined, path: string): boolean
  admit(path: string, headers: IncomingHttpHeaders, body: Buffer): Promise<Admission>
  /** What the session's calls have cost so far, the task's earlier spend included. */
  readonly spentUsd: number
}

const DECODERS: Record<string, (b: Buffer) => Promise<Buffer>> = {
  gzip: promisify(gunzip),
  'x-gzip': promisify(gunzip),
  deflate: promisify(inflate),
  br: promisify(brotliDecompress),
}

/** The request body as JSON bytes: decoded when it is compressed in a way Node reads; null when it cannot be. */
async function plainBody(headers: IncomingHttpHeaders, body: Buffer): Promise<Buffer | null> {
  const encoding = (headers['content-encoding'] ?? 'identity').trim().toLowerCase()
  if (encoding === '' || encoding === 'identity') return body
  const decode = DECODERS[encoding]
  return decode ? decode(body) : null
}

export interface MeterOptions {
  wire: ModelWire
  cap: SessionCostCap
  /** The engine's id: whose catalog prices its models (pricing.ts). */
  engine: string
  /** False where the upstream refuses an answer bound (the ChatGPT backend's `max_output_tokens`). */
  boundsOutput: boolean
  logger: Logger
  /** The cap held; the session ends as the cost cap. Called for every refusal and when the spend reaches the cap. */
  onReached(reached: CapReached): void
}

export function sessionMeter(o: MeterOptions): CallMeter {
  const { wire, cap } = o
  let billed = cap.spentUsd
  let held = 0
  const calls: CallUsage[] = []
  const said = new Set<string>()
  /** Said once a session: why a call is not held by the cap. */
  const sayOnce = (key: string, message: string) => {
    if (said.has(key)) return
    said.add(key)
    o.logger.warn(message)
  }
  const refuse = (why: string): Admission => {
    o.onReached({ capUsd: cap.capUsd, spentUsd: billed + held, why, calls })
    return { refused: why }
  }
  const costOf = (model: string | null, read: ReturnType<UsageReader['end']>): number | null => {
    const priced = read?.model ?? model
    if (!read || !priced) return null
    calls.push({ ...read, model: priced })
    const cost = estimateCost(priced, read, cap.prices, o.engine)
    return cost.known ? cost.usd : 0
  }

  return {
    meters: (method, path) => callKind(wire, method, path).metered,
    get spentUsd() {
      return billed
    },
    async admit(path, headers, body) {
      const kind = callKind(wire, 'POST', path)
      const boundable = kind.metered && kind.boundable && o.boundsOutput
      const plain = await plainBody(headers, body)
      const read = plain ? readCallRequest(wire, plain) : null
      const rates = read?.call.model ? priceFor(read.call.model, cap.prices, o.engine) : null
      if (billed >= cap.capUsd)
        return refuse(`${capReachedWords(cap.capUsd, billed + held)}: no more model calls.`)
      let forward = plain ?? body
      let hold = 0
      if (!read) {
        sayOnce(
          'unread',
          `engine: a model call of ${o.engine} could not be read (${headers['content-encoding'] ?? 'not JSON'}), so ` +
            "the cost cap does not bound it; it is counted from its answer's usage.",
        )
      } else if (!rates) {
        sayOnce(
          `price:${read.call.model ?? ''}`,
          `engine: Ralph has no price for ${o.engine}'s model "${read.call.model ?? 'unnamed'}" (add it under ` +
            "llm.prices), so the cost cap neither bounds nor counts this session's calls to it.",
        )
      } else {
        const decision = decideCall({
          wire,
          capUsd: cap.capUsd,
          spentUsd: billed + held,
          call: read.call,
          rates,
          boundable,
        })
        if ('refused' in decision) return refuse(decision.refused)
        if (decision.maxOutputTokens !== null)
          forward = boundedRequest(wire, read.json, decision.maxOutputTokens)
        hold = decision.reserveUsd
      }
      held += hold
      let reader: UsageReader | null = null
      let ok = false
      let ended = false
      const call: MeteredCall = {
        answered(status, contentType) {
          ok = status >= 200 && status < 300
          // Only a call the service answered is billed; an error answer costs nothing.
          if (ok) reader = usageReader(wire, contentType)
        },
        push: (chunk) => reader?.push(chunk),
        end() {
          if (ended) return
          ended = true
          held -= hold
          // An answer whose usage could not be read is billed at its hold: the most it could have cost.
          const cost = ok ? (costOf(read?.call.model ?? null, reader!.end()) ?? hold) : 0
          billed += cost
          if (cost > 0 && billed >= cap.capUsd)
            o.onReached({ capUsd: cap.capUsd, spentUsd: billed, why: null, calls })
        },
      }
      return { body: forward, decoded: plain !== null && plain !== body, call }
    },
  }
}
