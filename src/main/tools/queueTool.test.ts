import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { addTask, queryState, queueLog, queueView, setSpec } from '../queue'
import { spec, stateOf, task } from '../queue/testkit'
import { executeTool, toolSchemas } from './index'
import { formatList, formatNext, queueActions } from './queueTool'
import { makeContext, put, removeDir, tempDir } from './testkit'
import type { ToolContext } from './types'
import { memoryLogger } from '../workspace/logFile'

/** The queue's changes in these tests: failures they survive are kept in memory. */
const options = { logger: memoryLogger() }

let root: string
let ctx: ToolContext
const run = (args: unknown) => executeTool('queue', args, ctx)
const planText = () => readFileSync(join(root, '.ralph/plan.jsonl'), 'utf8')
const historyOps = async () => {
  const log = await queueLog({ projectDir: root })
  return log.kind === 'changes' ? log.entries.map((e) => e.op).reverse() : []
}

beforeEach(() => {
  root = tempDir('ralph-queue-tool-')
  ctx = makeContext(root)
  put(root, 'specs/notes.md', '# Notes\n')
})
afterEach(() => removeDir(root))

/** A spec with one pending task: the queue is in BUILD, as during `ralph build`. */
async function buildingQueue(): Promise<string> {
  await setSpec({ projectDir: root, spec: 'specs/notes.md', options })
  const r = await addTask({
    projectDir: root,
    name: 'Add a search box',
    notes: 'In src/search.ts',
    accept: ['DET: `npm test` passes', 'LLM: the box filters as you type'],
    options,
  })
  return r.ids[0]!
}

describe('queue tool schema', () => {
  it('offers exactly next, list, add_issue and add_task, and nothing that names a task to judge', () => {
    const json = z.toJSONSchema(toolSchemas.queue) as {
      properties: Record<string, { enum?: string[] }>
      required: string[]
      additionalProperties: boolean
    }
    expect(json.properties.action!.enum).toEqual(['next', 'list', 'add_issue', 'add_task'])
    expect(queueActions).toEqual(['next', 'list', 'add_issue', 'add_task'])
    expect(json.required).toEqual(['action'])
    expect(json.additionalProperties).toBe(false)
    // No id or reason argument: the tool cannot point at a task to mark done, accept, reject or cancel.
    expect(Object.keys(json.properties)).not.toContain('id')
    expect(Object.keys(json.properties)).not.toContain('reason')
  })
})

describe('queue tool refusals', () => {
  it.each(['done', 'accept', 'reject', 'cancel', 'task_done', 'mark_done', 'accept_task', 'close_issue'])(
    'refuses "%s" with the reason and changes nothing',
    async (action) => {
      const id = await buildingQueue()
      const before = planText()
      const opsBefore = await historyOps()
      const r = await run({ action })
      expect(r.ok).toBe(false)
      expect(r.output).toContain(`queue cannot "${action}"`)
      expect(r.output).toContain('never by the model doing the work')
      expect(r.output).toContain('mark_complete')
      expect(r.output).toContain('The queue actions are: next, list, add_issue, add_task.')
      expect(planText()).toBe(before)
      expect(await historyOps()).toEqual(opsBefore)
      expect((await queryState({ projectDir: root })).tasks.find((t) => t.id === id)?.status).toBe('pending')
    },
  )

  it('refuses an id or reason argument along with the verdict action', async () => {
    await buildingQueue()
    const r = await run({ action: 'accept', id: 't-0000', reason: 'looks good' })
    expect(r.ok).toBe(false)
    expect(r.output).toMatch(/^queue cannot "accept": accepting, rejecting, marking done/)
    expect(r.output).not.toContain('is not an argument')
  })

  it("passes the schema the AI SDK validates with, so the refusal is the tool's own sentence", () => {
    // The SDK rejects calls that fail this schema with a raw dump of zod issues before the tool ever runs.
    expect(toolSchemas.queue.safeParse({ action: 'accept', id: 't-0000' }).success).toBe(true)
  })

  it('names the actions for an unknown one, with a suggestion', async () => {
    const r = await run({ action: 'add_isue', description: 'x' })
    expect(r.ok).toBe(false)
    expect(r.output).toContain('queue has no action "add_isue". Did you mean add_issue?')
    expect((await run({})).output).toContain('- action: missing; this argument is required (string).')
    expect((await run({ action: 'add_issue', descripton: 'x' })).output).toBe(
      '"descripton" is not an argument of queue. Did you mean "description"?',
    )
  })

  it('refuses arguments that belong to another action', async () => {
    await buildingQueue()
    const prio = await run({ action: 'add_issue', description: 'Flaky test', priority: 'high' })
    expect(prio.ok).toBe(false)
    expect(prio.output).toContain('queue add_issue takes only description; remove priority.')
    expect(prio.output).toContain('Issues have no priority')
    expect((await run({ action: 'next', name: 'x' })).output).toBe(
      'queue next takes no other arguments; remove name.',
    )
    expect((await queryState({ projectDir: root })).issues).toEqual([])
  })
})

describe('queue next and list', () => {
  it('say there is no queue yet', async () => {
    expect((await run({ action: 'next' })).output).toMatch(
      /^Next: plan \(stage PLAN\)\. There is no \.ralph\/plan\.jsonl/,
    )
    expect((await run({ action: 'list' })).output).toBe(
      'The work queue is empty: there is no .ralph/plan.jsonl yet (stage PLAN).',
    )
    expect(existsSync(join(root, '.ralph/plan.jsonl'))).toBe(false)
  })

  it('show the task to build with its criteria, compactly', async () => {
    const id = await buildingQueue()
    const next = await run({ action: 'next' })
    expect(next.ok).toBe(true)
    const [head, json] = next.output.split('\n')
    expect(head).toBe(`Next: build task ${id} (stage BUILD).`)
    expect(JSON.parse(json!)).toEqual({
      id,
      name: 'Add a search box',
      status: 'pending',
      priority: 'medium',
      notes: 'In src/search.ts',
      accept: ['AC1 DET: `npm test` passes', 'AC2 LLM: the box filters as you type'],
    })
    const list = await run({ action: 'list' })
    expect(list.output.split('\n')[0]).toBe(
      'Work queue: spec specs/notes.md, stage BUILD, 1 task(s) (1 pending, 0 done awaiting verification), 0 open issue(s).',
    )
    expect(JSON.parse(list.output.split('\n')[1]!)).toEqual({
      tasks: [{ id, name: 'Add a search box', status: 'pending', priority: 'medium', criteria: 2 }],
      issues: [],
    })
  })

  it('formats every next action', () => {
    expect(formatNext({ action: 'none', stage: 'COMPLETE' })).toMatch(/^Next: nothing \(stage COMPLETE\)/)
    expect(
      formatNext({
        action: 'investigate',
        stage: 'INVESTIGATE',
        issue: { id: 'i-abcd', spec: 's.md', desc: 'Flaky', line: 2 },
      }),
    ).toBe('Next: investigate issue i-abcd (stage INVESTIGATE).\n{"id":"i-abcd","desc":"Flaky"}')
  })

  it('cuts a long list and says where the rest is', () => {
    const records = Array.from({ length: 150 }, (_, i) =>
      task(`t-${String(i).padStart(4, '0')}`, { spec: 's.md', name: `Task ${i}` }),
    )
    const out = formatList({
      ...queueView(stateOf(spec('s.md'), ...records)),
      malformed: [{ line: 1, text: '{', error: 'not JSON' }],
      warnings: [],
    })
    const body = JSON.parse(out.split('\n')[1]!) as {
      tasks: unknown[]
      moreTasks: number
      problems: string[]
    }
    expect(body.tasks).toHaveLength(100)
    expect(body.moreTasks).toBe(50)
    expect(body.problems).toEqual(['line 1: not JSON'])
    expect(out).toContain('read .ralph/plan.jsonl with read_file for the rest')
  })
})

describe('queue add_issue', () => {
  it('adds the issue through the queue: plan.jsonl and one history commit', async () => {
    await buildingQueue()
    const r = await run({ action: 'add_issue', description: '  The date parser crashes on empty input. ' })
    expect(r.ok).toBe(true)
    const issue = (await queryState({ projectDir: root })).issues[0]!
    expect(issue.desc).toBe('The date parser crashes on empty input.')
    expect(issue.id).toMatch(/^i-[0-9a-z]{4}$/)
    expect(r.output).toMatch(
      new RegExp(
        `^Added issue ${issue.id} to the work queue \\(spec specs/notes\\.md; history commit [0-9a-f]{7}\\)`,
      ),
    )
    expect(planText()).toContain(`"desc":"The date parser crashes on empty input."`)
    expect(await historyOps()).toEqual(['set-spec', 'task-add', 'issue-add'])
    // Recording an issue is not progress on the task: the loop's stall detection must not count it.
    expect(r.changedFiles).toEqual([])
  })

  it('does not add the same issue twice', async () => {
    await buildingQueue()
    const first = await run({ action: 'add_issue', description: 'Flaky test in CI' })
    const again = await run({ action: 'add_issue', description: 'flaky test in ci' })
    expect(again.ok).toBe(true)
    const id = /^Added issue (i-[0-9a-z]{4}) /.exec(first.output)![1]
    expect(again.output).toBe(`Issue ${id} already records this; nothing was added.`)
    expect((await queryState({ projectDir: root })).issues).toHaveLength(1)
    expect(await historyOps()).toEqual(['set-spec', 'task-add', 'issue-add'])
  })

  it('needs a description and a spec', async () => {
    expect((await run({ action: 'add_issue' })).output).toContain('queue add_issue needs a description')
    expect((await run({ action: 'add_issue', description: '   ' })).ok).toBe(false)
    const noSpec = await run({ action: 'add_issue', description: 'Something is off' })
    expect(noSpec.ok).toBe(false)
    expect(noSpec.output).toContain('The work queue has no spec yet')
    expect(existsSync(join(root, '.ralph/plan.jsonl'))).toBe(false)
  })
})

describe('queue add_task', () => {
  it('is refused while queue tasks are being built', async () => {
    await buildingQueue()
    const before = planText()
    const r = await run({ action: 'add_task', name: 'Also add sorting' })
    expect(r.ok).toBe(false)
    expect(r.output).toContain('queue add_task is refused while the queue is in stage BUILD')
    expect(r.output).toContain('{action: "add_issue"')
    expect(planText()).toBe(before)
  })

  it('adds a task while a spec is planned, with its criteria and the queue warnings', async () => {
    await setSpec({ projectDir: root, spec: 'specs/notes.md', options })
    const r = await run({
      action: 'add_task',
      name: 'Write the notes list',
      notes: 'src/list.ts',
      accept: ['DET: `npm test` passes', 'the list shows titles'],
      priority: 'high',
    })
    expect(r.ok).toBe(true)
    const task = (await queryState({ projectDir: root })).tasks[0]!
    expect(task).toMatchObject({ name: 'Write the notes list', priority: 'high', status: 'pending' })
    expect(r.output.split('\n')).toEqual([
      `Added task ${task.id} "Write the notes list" to the work queue (spec specs/notes.md; history commit ${r.output.match(/commit ([0-9a-f]{7})/)![1]}).`,
      '  AC1 DET: `npm test` passes',
      '  AC2 LLM: the list shows titles',
      expect.stringMatching(/^Warning: t-[0-9a-z]{4} AC2 has no DET: or LLM: tag/),
    ])
    expect(await historyOps()).toEqual(['set-spec', 'task-add'])
  })

  it('passes the queue refusals on (an unknown dependency)', async () => {
    await setSpec({ projectDir: root, spec: 'specs/notes.md', options })
    const r = await run({ action: 'add_task', name: 'Depends on a ghost', deps: ['t-zzzz'] })
    expect(r.ok).toBe(false)
    expect(r.output).toMatch(/^queue add_task failed: .*t-zzzz/)
    expect((await queryState({ projectDir: root })).tasks).toEqual([])
  })
})
