import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { isAppError } from '../../../src/shared/errors'
import { ledgerPath } from '../../../src/main/brainstorm'
import type { ScriptedReply } from '../../fixtures/fakeLlmServer'
import {
  docsReply,
  ideasAnswer,
  intoIdeate,
  makeWorld,
  reviewReply,
  roadmapDoc,
  turn,
  visionDoc,
} from './fixtures'

let world: Awaited<ReturnType<typeof makeWorld>>
beforeEach(async () => {
  world = await makeWorld()
})
afterEach(async () => {
  await world.cleanup()
})

const ideasSection = (text: string) => text.slice(text.indexOf('## Ideas'))

describe('brainstorm engine: capture and ledger', () => {
  it('keeps a capture only when its quote is in the last answer, numbers ideas and appends them to the ledger', async () => {
    const session = await intoIdeate(world)
    expect(session.state.phase).toBe('ideate')
    expect(session.pending).toMatchObject({ kind: 'open', id: 'ideate' })

    world.enqueue(
      turn('Nice. What else?', [
        { quote: 'talk to it while my hands are floury', title: 'Voice mode', domain: '[UX]' },
        // the model's own idea: not in the user's words, so it is dropped
        { quote: 'a social feed of recipes', title: 'Social feed', domain: 'Comm' },
      ]),
    )
    await session.answer("I'd love to Talk to it while my  hands are floury.")
    expect(world.of('brainstorm.idea')).toEqual([
      { type: 'brainstorm.idea', id: 'I001', title: 'Voice mode', domain: 'UX' },
    ])
    expect(world.promptOf(3)).toContain("I'd love to Talk to it while my  hands are floury.")
    const first = readFileSync(ledgerPath(world.dir), 'utf8')
    expect(first).toContain('## Session state')
    expect(first).toContain('- idea_count: 1')
    expect(first).toContain('I001 [UX] Voice mode — talk to it while my hands are floury')

    world.enqueue(
      turn('And?', [
        {
          quote: 'share a shopping list with my partner',
          title: 'Shared list',
          domain: 'User experience / workflows / onboarding',
          novelty: 'Lists today live in separate apps',
        },
        { quote: 'offline mode', title: 'Offline', domain: 'Perf' },
      ]),
    )
    await session.answer('Share a shopping list with my partner. And an offline mode.')
    const second = readFileSync(ledgerPath(world.dir), 'utf8')
    // append-only: the earlier ideas stay byte for byte, the new ones follow
    expect(ideasSection(second).startsWith(ideasSection(first).trimEnd())).toBe(true)
    expect(second).toContain(
      'I002 [UX] Shared list — share a shopping list with my partner\n     Novelty: Lists today live in separate apps',
    )
    expect(second).toContain('I003 [Perf] Offline — offline mode')
    expect(second).toContain('- idea_count: 3')
    expect(
      world
        .repo()
        .ideas(session.id)
        .map((i) => i.number),
    ).toEqual([1, 2, 3])
    expect(session.view()).toMatchObject({
      phase: 'ideate',
      ideaCount: 3,
      domainsCovered: ['UX', 'Perf'],
      lens: 'What-If Scenarios',
      nextPivotAt: 10,
      nextInterruptAt: 20,
      recentIdeas: [
        { id: 'I001', title: 'Voice mode', domain: 'UX' },
        { id: 'I002', title: 'Shared list', domain: 'UX' },
        { id: 'I003', title: 'Offline', domain: 'Perf' },
      ],
      drafts: null,
    })
  })

  it('reads README, manifest and an existing VISION.md into SETUP, which is told to ask only the rest', async () => {
    writeFileSync(join(world.dir, 'README.md'), '# Pantry\nA recipe box for busy parents.\n')
    writeFileSync(
      join(world.dir, 'package.json'),
      JSON.stringify({ name: 'pantry', description: 'recipes', dependencies: { react: '19' } }),
    )
    writeFileSync(join(world.dir, 'VISION.md'), 'Old vision: help parents cook.\n')
    world.enqueue(turn('I read your README. Who is the primary user?'))
    await world.open()
    const prompt = world.promptOf(0)
    expect(prompt).toContain('A recipe box for busy parents.')
    expect(prompt).toContain('name: pantry')
    expect(prompt).toContain('dependencies: react')
    expect(prompt).toContain('Old vision: help parents cook.')
    expect(prompt).toMatch(/ask only what they leave open/)
  })
})

describe('brainstorm engine: the schedule', () => {
  it('pivots every 10 ideas, interrupts once at 20/40/60/80, checks energy every 5 exchanges, gates ORGANIZE at 50', async () => {
    const session = await intoIdeate(world)
    const exchange = async (
      from: number,
      n: number,
      extra: { phaseDone?: boolean; then?: ScriptedReply } = {},
    ) => {
      const { answer, reply } = ideasAnswer(from, n)
      if (extra.phaseDone) (reply as { value: { phaseDone: boolean } }).value.phaseDone = true
      world.enqueue(reply, ...(extra.then ? [extra.then] : []))
      await session.answer(answer)
    }
    await exchange(1, 10)
    expect(world.of('brainstorm.pivot')).toEqual([{ type: 'brainstorm.pivot', to: 'UX', at: 10 }])
    await exchange(11, 10)
    // the pivot's directive reached the next turn
    expect(world.promptOf(4)).toMatch(/Domain pivot: move the conversation to \[UX\]/)
    expect(world.of('brainstorm.interrupt')).toEqual([
      { type: 'brainstorm.interrupt', kind: 'reverse', at: 20 },
    ])
    expect(world.of('brainstorm.pivot').at(-1)).toMatchObject({ to: 'DX', at: 20 })

    // 30 ideas and the model wants to wrap up: refused, it is told to stay divergent
    await exchange(21, 10, { phaseDone: true })
    expect(session.state.phase).toBe('ideate')
    await exchange(31, 10)
    expect(world.promptOf(6)).toContain('Not yet: only 30 ideas')
    expect(world.promptOf(6)).toContain('Impossible round')
    // IDEATE never sees the whole ledger: only the latest ideas
    expect(world.promptOf(6)).not.toContain('I001 [')
    expect(world.promptOf(6)).toContain('I030 [Core] Idea 30')
    // after 30 ideas the chat shows deltas
    expect(session.pending!.text).toContain(
      'Ideas: 40 · last: I036, I037, I038, I039, I040 · lens: What-If Scenarios · next pivot at 50',
    )
    expect(session.pending!.kind).toBe('open')

    await exchange(41, 10) // the fifth exchange: energy check
    expect(session.pending).toMatchObject({ kind: 'choice', id: 'energy', default: 'keep' })
    expect(session.pending!.text).toContain('We have 50 ideas')
    const before = world.chatCount()
    await session.answer('Keep going')
    expect(world.chatCount()).toBe(before) // no model call: the last question stands
    expect(session.pending).toMatchObject({ kind: 'open', id: 'ideate', text: 'More?' })

    await exchange(51, 10)
    // six exchanges on one lens: the harness rotates to the next technique
    expect(session.state.technique.used).toEqual(['What-If Scenarios', 'SCAMPER'])
    await exchange(61, 10)
    await exchange(71, 10)
    expect(world.of('brainstorm.interrupt').map((e) => [e.kind, e.at])).toEqual([
      ['reverse', 20],
      ['analogy', 40],
      ['constraint', 60],
      ['black-swan', 80],
    ])
    expect(world.of('brainstorm.pivot').map((e) => e.at)).toEqual([10, 20, 30, 40, 50, 60, 70, 80])
    // every idea here is filed under Core, so each pivot goes to a domain not visited yet
    expect(world.of('brainstorm.pivot').map((e) => e.to)).toEqual([
      'UX',
      'DX',
      'Ops',
      'Biz',
      'Edge',
      'Eco',
      'A11y',
      'Perf',
    ])

    // past 50 ideas the model may close IDEATE
    await exchange(81, 5, { phaseDone: true, then: turn('Let us group these. Here are 6 themes…') })
    expect(session.state.phase).toBe('organize')
    expect(world.of('brainstorm.phase').at(-1)).toEqual({
      type: 'brainstorm.phase',
      from: 'ideate',
      to: 'organize',
    })
    expect(session.pending).toMatchObject({
      kind: 'open',
      id: 'organize',
      text: 'Let us group these. Here are 6 themes…',
    })
    // ORGANIZE sees every id and title
    expect(world.promptOf(world.chatCount() - 1)).toContain('I001 [Core] Idea 1')
    expect(session.state.interruptsDone).toEqual([20, 40, 60, 80])
  })

  it('opens ORGANIZE early only when the user asks for it', async () => {
    const session = await intoIdeate(world)
    const { answer, reply } = ideasAnswer(1, 3)
    world.enqueue(reply)
    await session.answer(answer)
    world.enqueue(turn('Here are the first themes.'))
    await session.answer('/organize')
    expect(session.state.phase).toBe('organize')
    expect(session.state.ideaCount).toBe(3)
  })
})

describe('brainstorm engine: resume', () => {
  it('resumes after a restart at the same phase, with the same ledger and the next idea number', async () => {
    const session = await intoIdeate(world)
    const { answer, reply } = ideasAnswer(1, 3)
    world.enqueue(reply)
    await session.answer(answer)
    const ledger = readFileSync(ledgerPath(world.dir), 'utf8')
    const pendingText = session.pending!.text

    world.reopen()
    world.events.length = 0
    const resumed = await world.open()
    expect(resumed.id).toBe(session.id)
    expect(resumed.state.phase).toBe('ideate')
    expect(world.events).toEqual([
      { type: 'brainstorm.phase', from: null, to: 'ideate' },
      { type: 'brainstorm.say', text: 'Resuming your brainstorm at IDEATE with 3 ideas.' },
      { type: 'brainstorm.say', text: pendingText },
    ])
    expect(ideasSection(readFileSync(ledgerPath(world.dir), 'utf8'))).toBe(ideasSection(ledger))

    const next = ideasAnswer(4, 1)
    world.enqueue(next.reply)
    await resumed.answer(next.answer)
    expect(world.of('brainstorm.idea').map((e) => e.id)).toEqual(['I004'])
  })

  it('a session killed during a model call redoes that call on resume, from the saved answer', async () => {
    const session = await intoIdeate(world)
    const controller = new AbortController()
    world.enqueue({ kind: 'hang' })
    const { answer, reply } = ideasAnswer(1, 2)
    const killed = world.open({}, { signal: controller.signal })
    const live = await killed
    const pending = live.answer(answer)
    // wait until the request is at the server, then "kill" the process
    await expect.poll(() => world.chatCount(), { timeout: 10_000 }).toBe(4)
    controller.abort()
    await expect(pending).rejects.toSatisfy((e) => isAppError(e, 'cancelled'))
    expect(session.id).toBe(live.id)

    world.reopen()
    world.enqueue(reply)
    const resumed = await world.open()
    expect(resumed.state.ideaCount).toBe(2)
    expect(resumed.pending).toMatchObject({ kind: 'open', id: 'ideate', text: 'More?' })
    expect(readFileSync(ledgerPath(world.dir), 'utf8')).toContain('I002 [Core] Idea 2')
  })
})

async function quickToOutput(w: typeof world) {
  const session = await w.open({ quick: true })
  expect(session.pending).toMatchObject({ kind: 'open', id: 'quick-0' })
  for (const a of [
    'A recipe box that knows my pantry.',
    'URL import; pantry list; missing ingredients',
    'No social feed',
    'Two months, one developer, web only',
    'Three recipes imported in five minutes',
  ])
    await session.answer(a)
  return session
}

describe('brainstorm engine: output, review and files', () => {
  it('sends an over-long VISION.md back once with the exact problem, then accepts the fixed one', async () => {
    world.enqueue(docsReply(visionDoc(70)), docsReply())
    const session = await quickToOutput(world)
    expect(world.chatCount()).toBe(2)
    expect(world.promptOf(1)).toContain('VISION.md has 99 lines; the limit is 80.')
    expect(world.promptOf(0)).toContain('Three recipes imported in five minutes')
    expect(session.pending).toMatchObject({ kind: 'choice', id: 'drafts' })
    expect(session.pending!.text).toMatch(/VISION\.md: 29\/80 lines · ROADMAP\.md: 32\/120 lines/)
  })

  it('"Change something" sends the request with the current drafts and validates the new ones', async () => {
    world.enqueue(docsReply())
    const session = await quickToOutput(world)
    await session.answer('Change something')
    expect(session.pending).toMatchObject({ kind: 'open', id: 'change' })
    world.enqueue(docsReply(visionDoc().replace('Personal use only', 'Families only')))
    await session.answer('Make it for families, not individuals')
    const prompt = world.promptOf(1)
    expect(prompt).toContain(
      '## Revise both documents for this request\nMake it for families, not individuals',
    )
    expect(prompt).toContain('## Current VISION.md\n# VISION')
    expect(session.state.drafts!.vision).toContain('Families only')
    expect(session.pending).toMatchObject({ id: 'drafts' })
  })

  it('reports YAML that is still broken after one correction and writes nothing', async () => {
    const broken = '# ROADMAP\n\n```yaml\nversion: "0.1\nproject: [unclosed\n```'
    const missing = roadmapDoc().replace(/definition_of_done:\n {2}- "All tracks done"\n/, '')
    world.enqueue(docsReply(visionDoc(), broken), docsReply(visionDoc(), missing))
    const session = await quickToOutput(world)
    expect(world.promptOf(1)).toMatch(/ROADMAP\.md: the YAML does not parse/)
    const error = world.of('brainstorm.error')[0]!
    expect(error.problems).toEqual([expect.stringMatching(/^ROADMAP\.md: definition_of_done: /)])
    expect(session.failed).toBe(true)
    expect(session.pending).toMatchObject({ kind: 'choice', id: 'failed', default: 'stop' })
    expect(await session.answer('Stop here')).toBe('paused')
    expect(existsSync(join(world.dir, 'VISION.md'))).toBe(false)
    expect(existsSync(join(world.dir, 'ROADMAP.md'))).toBe(false)
    // the refused draft waits in .ralph/brainstorm/draft/ for a fix by hand, validated like the model's
    const handDraft = join(world.dir, '.ralph', 'brainstorm', 'draft', 'ROADMAP.md')
    expect(readFileSync(handDraft, 'utf8')).toBe(missing)
    expect(await session.answer('Use my edited draft')).toBe('taken')
    expect(world.of('brainstorm.error').at(-1)!.message).toBe('The edited draft is still invalid.')
    writeFileSync(handDraft, roadmapDoc())
    expect(await session.answer('Use my edited draft')).toBe('taken')
    expect(session.failed).toBe(false)
    expect(session.pending).toMatchObject({ id: 'drafts' })
    expect(session.state.drafts!.roadmap).toBe(roadmapDoc())
  })

  it('"Try again" after refused documents redoes the call', async () => {
    const broken = '# ROADMAP\n\n```yaml\nversion: [\n```'
    world.enqueue(docsReply(visionDoc(), broken), docsReply(visionDoc(), broken))
    const session = await quickToOutput(world)
    expect(session.pending).toMatchObject({ id: 'failed' })
    world.enqueue(docsReply())
    expect(await session.answer('Try again')).toBe('taken')
    expect(session.failed).toBe(false)
    expect(session.pending).toMatchObject({ id: 'drafts' })
  })

  it('refuses a review with zero findings, asks again, and lets the user apply or dismiss each', async () => {
    world.enqueue(docsReply())
    const session = await quickToOutput(world)
    world.enqueue(reviewReply(0), reviewReply(5))
    await session.answer('Looks right')
    expect(world.promptOf(2)).toContain('refused: it had 0 findings')
    expect(world.of('brainstorm.findings')[0]!.findings).toHaveLength(5)
    expect(session.pending).toMatchObject({ kind: 'choice', id: 'finding', default: 'dismiss' })
    await session.answer('Apply')
    // one applied finding: the documents are revised and validated before the files step
    world.enqueue(docsReply(visionDoc().replace('Knows what is in the pantry', 'Knows the pantry')))
    for (let i = 0; i < 4; i++) await session.answer('dismiss')
    expect(session.state.findings.map((f) => f.decision)).toEqual([
      'apply',
      'dismiss',
      'dismiss',
      'dismiss',
      'dismiss',
    ])
    expect(world.promptOf(3)).toContain('fix these review findings')
    expect(world.promptOf(3)).toContain('1. [HIGH] Problem 1 — fix: Fix 1')
    expect(world.promptOf(3)).not.toContain('Problem 2')
    expect(session.state.drafts!.vision).toContain('Knows the pantry')
    expect(session.pending).toMatchObject({ kind: 'choice', id: 'write', default: 'write' })
  })

  it('writes VISION.draft.md for an existing VISION.md unless the user picks Update', async () => {
    writeFileSync(join(world.dir, 'VISION.md'), 'my own vision\n')
    world.enqueue(docsReply(), reviewReply(5))
    const session = await quickToOutput(world)
    await session.answer('1')
    for (let i = 0; i < 5; i++) await session.answer('Dismiss')
    expect(session.pending).toMatchObject({ kind: 'choice', id: 'existing-vision', default: 'draft' })
    await session.answer('New draft')
    expect(session.pending).toMatchObject({ id: 'write' })
    await session.answer('Write files')
    expect(world.of('brainstorm.written')).toEqual([
      { type: 'brainstorm.written', files: ['VISION.draft.md', 'ROADMAP.md'] },
    ])
    expect(readFileSync(join(world.dir, 'VISION.md'), 'utf8')).toBe('my own vision\n')
    expect(readFileSync(join(world.dir, 'VISION.draft.md'), 'utf8')).toBe(`${visionDoc()}\n`)
    // ROADMAP.md is written: the work queue is offered, "Not now" by default
    expect(session.state.phase).toBe('done')
    expect(session.pending).toMatchObject({ kind: 'choice', id: 'queue', default: 'later' })
    await session.answer('Not now')
    expect(session.finished).toBe(true)
    expect(existsSync(join(world.dir, '.ralph', 'plan.jsonl'))).toBe(false)

    // a new session, this time "Update"
    world.events.length = 0
    world.enqueue(docsReply(), reviewReply(6))
    const again = await quickToOutput(world)
    expect(again.id).not.toBe(session.id)
    await again.answer('1')
    for (let i = 0; i < 6; i++) await again.answer('2')
    await again.answer('Update')
    expect(again.pending).toMatchObject({ id: 'existing-roadmap' })
    await again.answer('update')
    await again.answer('1')
    expect(world.of('brainstorm.written')[0]!.files).toEqual(['VISION.md', 'ROADMAP.md'])
    expect(readFileSync(join(world.dir, 'VISION.md'), 'utf8')).toBe(`${visionDoc()}\n`)
    await again.answer('Create the work queue')
    expect(again.finished).toBe(true)
    expect(world.of('brainstorm.say').at(-1)!.text).toMatch(/^Queued 5 tasks in 2 specs/)
    expect(existsSync(join(world.dir, 'specs', 'roadmap-track-1-recipe-import.md'))).toBe(true)
    expect(readFileSync(join(world.dir, '.ralph', 'plan.jsonl'), 'utf8')).toContain('URL importer')
  })
})
