import type { z } from 'zod'
import { brainstormCalls, brainstormEvents } from './brainstorm'
import { chatCalls, chatEvents } from './chat'
import { coreCalls, coreEvents } from './core'
import { enginesCalls } from './engines'
import { planCalls, planEvents } from './plan'
import { pricesCalls } from './prices'
import { queueCalls, queueEvents } from './queue'
import { mcpCalls } from './mcp'
import { rulesCalls } from './rules'
import { sandboxCalls } from './sandbox'
import { snapshotCalls, snapshotEvents } from './snapshots'
import { taskCalls, taskEvents } from './tasks'
import { userGitCalls } from './userGit'
import { workersCalls } from './workers'

/**
 * The whole API: every call and event the renderer (or any client) may use. Both transports (Electron IPC and
 * the web host) serve exactly this object, and channel names are derived from its keys.
 */
export const calls = {
  ...coreCalls,
  ...snapshotCalls,
  ...planCalls,
  ...taskCalls,
  ...chatCalls,
  ...brainstormCalls,
  ...queueCalls,
  ...userGitCalls,
  ...sandboxCalls,
  ...rulesCalls,
  ...mcpCalls,
  ...enginesCalls,
  ...pricesCalls,
  ...workersCalls,
}
export const events = {
  ...coreEvents,
  ...snapshotEvents,
  ...taskEvents,
  ...chatEvents,
  ...brainstormEvents,
  ...planEvents,
  ...queueEvents,
}

export type Calls = typeof calls
export type Events = typeof events
export type CallName = keyof Calls & string
export type EventName = keyof Events & string
export type Input<N extends CallName> = z.input<Calls[N]['input']>
export type Output<N extends CallName> = z.output<Calls[N]['output']>
export type EventPayload<N extends EventName> = z.output<Events[N]>
/** What an emitter may pass for an event: its schema's input (fields with a default may be left out). */
export type EventInput<N extends EventName> = z.input<Events[N]>
/** One event with its payload typed by its name: a union discriminated on `name`, for the core's subscribers. */
export type TypedEvent = { [N in EventName]: { name: N; payload: EventPayload<N> } }[EventName]

export const callNames = Object.keys(calls) as CallName[]
export const eventNames = Object.keys(events) as EventName[]

export function isCallName(name: string): name is CallName {
  return Object.prototype.hasOwnProperty.call(calls, name)
}

/** Electron IPC channel names, derived from the contract so they are never typed twice. */
export const ipcChannels = {
  call: (name: CallName) => `ralph:call:${name}`,
  event: 'ralph:event',
} as const

/** Web host paths. */
export const httpPaths = {
  call: (name: CallName) => `/api/call/${name}`,
  events: '/api/events',
} as const

/**
 * The web host's per-launch CSRF value: put into the served page as `<meta name="ralph-csrf">` (only a page of
 * the host's own origin can read it) and sent back by the renderer on every call in the `x-ralph-csrf` header.
 */
export const csrf = { meta: 'ralph-csrf', header: 'x-ralph-csrf' } as const

/** One message on the event stream (IPC or WebSocket). */
export interface EventEnvelope {
  name: string
  payload: unknown
}
