import type { z } from 'zod'

/** One contract call: a name (the key it is registered under), a zod input and a zod output schema. */
export interface CallDef<I extends z.ZodType = z.ZodType, O extends z.ZodType = z.ZodType> {
  input: I
  output: O
  /**
   * The call changes something (files, the store, the queue, settings). The core refuses a second identical one
   * (same name, same input) while the first still runs, so a double click can never act twice.
   */
  mutates?: true
}

export type CallMap = Record<string, CallDef>
export type EventMap = Record<string, z.ZodType>

export const defineCalls = <T extends CallMap>(calls: T): T => calls
export const defineEvents = <T extends EventMap>(events: T): T => events

export type CallInput<C extends CallDef> = z.input<C['input']>
export type CallOutput<C extends CallDef> = z.output<C['output']>
