// A lane's parse started before its lane is made (build/earlyParse.ts), against the fake model server: the loop that
// takes it gets its answer and its call's usage; a parse no loop took leaves its usage for the build to count.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { EarlyParse } from '../../../src/main/build/earlyParse'
import type { ModelConfig } from '../../../src/main/llm/createModel'
import type { UsageEntry } from '../../../src/main/llm/usage'
import type { ParseContext } from '../../../src/main/tasks/taskParser'
import { memoryLogger } from '../../../src/main/workspace/logFile'
import { startFakeLlmServer, type FakeLlmServer, type ScriptedReply } from '../../fixtures/fakeLlmServer'
import { parsed } from '../loop/harness'

const context: ParseContext = {
  planExists: false,
  lastSummary: '',
  fileList: ['a.txt'],
  taskNumber: 4,
  previousTag: 'task-3-post',
}

/** The parse's reply, sent after `delayMs`. */
const parsedAfter = (delayMs: number): ScriptedReply => ({
  kind: 'text',
  text: (parsed({ type: 'fresh', title: 'Write a.txt' }) as { text: string }).text,
  delayMs,
})

describe('a parse started before its lane', () => {
  let llm: FakeLlmServer
  let model: ModelConfig
  beforeAll(async () => {
    llm = await startFakeLlmServer()
    model = { provider: 'openai-compatible', model: 'fake-model', baseUrl: llm.baseUrl, apiKey: null }
  })
  afterAll(() => llm.close())
  beforeEach(() => llm.reset())

  const start = (signal = new AbortController().signal) =>
    new EarlyParse({ message: 'Write a.txt', context, model, signal, logger: memoryLogger() })

  it('gives the loop that takes it the answer and the usage, recorded before the take or after it', async () => {
    llm.enqueue(parsedAfter(100), parsed({ type: 'fresh' }))
    // Taken while the call is still out: its usage reaches the loop when the call ends.
    const early = start()
    const seen: UsageEntry[] = []
    const answer = await early.take((e) => seen.push(e))
    expect(answer).toMatchObject({ fallback: false, task: { type: 'fresh', title: 'Write a.txt' } })
    expect(seen).toHaveLength(1)
    expect(seen[0]).toMatchObject({ purpose: 'parse', taskNumber: 4, iteration: null })
    expect(await early.untaken()).toEqual([])

    // Taken once its answer is in (its usage held until then): handed over at the take, and only once.
    const late = start()
    await expect.poll(() => llm.requests.length).toBe(2)
    const held: UsageEntry[] = []
    await late.take((e) => held.push(e))
    expect(held).toHaveLength(1)
    expect(await late.untaken()).toEqual([])
  })

  it('leaves the usage of a call no loop took to the build, and nothing for a call cancelled before an answer', async () => {
    llm.enqueue(parsed({ type: 'fresh' }))
    const untaken = start()
    const usage = await untaken.untaken()
    expect(usage).toHaveLength(1)
    expect(usage[0]).toMatchObject({ purpose: 'parse', taskNumber: 4 })
    // Counted once: a second look finds nothing more.
    expect(await untaken.untaken()).toEqual([])

    llm.enqueue(parsedAfter(5_000))
    const stop = new AbortController()
    const cancelled = start(stop.signal)
    await expect.poll(() => llm.requests.length).toBe(2)
    stop.abort()
    expect(await cancelled.untaken()).toEqual([])
    await expect(cancelled.take(() => undefined)).rejects.toThrow()
  })
})
