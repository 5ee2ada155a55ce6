// The model's `queue` tool inside a real task: runTask against the fake LLM server over HTTP, the real queue
// (plan.jsonl and its history ref in the shadow store). The model reads the next task, records an issue, and
// tries to accept its own task, which is refused.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { LoopEvent } from '../../../src/shared/loopEvents'
import { addTask, queryState, queueLog, setSpec } from '../../../src/main/queue'
import { loopFixture, parsed, tools } from '../loop/harness'
import { memoryLogger } from '../../../src/main/workspace/logFile'

/** The queue's changes in these tests: failures they survive are kept in memory. */
const options = { logger: memoryLogger() }

type ToolCalled = Extract<LoopEvent, { type: 'tool.called' }>

describe('the queue tool in a real task', () => {
  const t = loopFixture()

  it('reads the next task, adds an issue through the queue, and cannot accept its own work', async () => {
    t.h.write({ 'specs/notes.md': '# Notes\n' })
    await setSpec({ projectDir: t.h.dir, spec: 'specs/notes.md', options })
    const task = (
      await addTask({
        projectDir: t.h.dir,
        name: 'Write the notes file',
        accept: ['DET: notes.md exists', 'LLM: it has a heading'],
        options,
      })
    ).ids[0]!

    const issue = 'The README links to a page that does not exist.'
    t.llm.enqueue(
      parsed({ type: 'fresh', title: 'Write the notes file' }),
      tools(['queue', { action: 'next' }], ['queue', { action: 'add_issue', description: issue }]),
      tools(['queue', { action: 'accept', id: task }]),
      tools(
        ['write_file', { path: 'notes.md', content: '# Notes\n' }],
        [
          'mark_complete',
          { summary: 'Wrote notes.md with a heading; recorded the broken README link as an issue.' },
        ],
      ),
    )
    const result = await t.h.run('Write the notes file')
    expect(result).toMatchObject({ status: 'complete', iterations: 1 })

    // The tool is offered to the model with its four actions.
    const offered = (
      t.llm.requests.at(-1)!.body as { tools: { function: { name: string; parameters: unknown } }[] }
    ).tools
    const queueTool = offered.find((x) => x.function.name === 'queue')!
    expect(JSON.stringify(queueTool.function.parameters)).toContain('["next","list","add_issue","add_task"]')

    const calls = t.h.events.filter((e): e is ToolCalled => e.type === 'tool.called' && e.name === 'queue')
    expect(calls.map((c) => [(c.args as { action: string }).action, c.ok])).toEqual([
      ['next', true],
      ['add_issue', true],
      ['accept', false],
    ])

    // What the model read back: the task from `next`, the new issue's id, and the refusal.
    const seen = JSON.stringify(t.h.chatRequests().at(-1)!.messages)
    expect(seen).toContain(`Next: build task ${task} (stage BUILD).`)
    expect(seen).toContain('AC1 DET: notes.md exists')
    expect(seen).toMatch(/Added issue i-[0-9a-z]{4} to the work queue/)
    expect(seen).toContain('queue cannot \\"accept\\"')
    expect(seen).not.toContain('Invalid tool call')

    // The issue is in .ralph/plan.jsonl, recorded by a history commit after the task's; the task is still pending.
    const state = await queryState({ projectDir: t.h.dir })
    expect(state.issues.map((i) => i.desc)).toEqual([issue])
    expect(state.tasks.map((x) => [x.id, x.status])).toEqual([[task, 'pending']])
    expect(readFileSync(join(t.h.dir, '.ralph/plan.jsonl'), 'utf8')).toContain(JSON.stringify(issue))
    const log = await queueLog({ projectDir: t.h.dir })
    if (log.kind !== 'changes') throw new Error('expected the change log')
    expect(log.entries.map((e) => e.op)).toEqual(['issue-add', 'task-add', 'set-spec'])
    expect(log.entries[0]).toMatchObject({ ids: [state.issues[0]!.id], spec: 'specs/notes.md' })
    expect(log.entries[0]!.message).toContain(issue)
  })
})
