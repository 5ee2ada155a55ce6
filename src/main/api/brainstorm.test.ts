import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { BrainstormDetail } from '../../shared/api/brainstorm'
import type { EventEnvelope } from '../../shared/api/contract'
import { startFakeLlmServer, type FakeLlmServer } from '../../../tests/fixtures/fakeLlmServer'
import { makeTempDir } from '../../../tests/helpers/tempDir'
import {
  docsReply,
  reviewReply,
  roadmapDoc,
  turn,
  visionDoc,
} from '../../../tests/integration/brainstorm/fixtures'
import { createCore, type Core } from './core'

type Got = { session: BrainstormDetail | null; running: boolean; error: string | null; notice: string | null }

const quick = {
  description: 'A pantry-aware recipe box for busy home cooks.',
  mustHaves: 'import from a URL; pantry list; missing ingredients',
  nonGoals: 'no social feed',
  constraints: 'one developer, web only',
  success: 'a new user imports 3 recipes in 5 minutes',
}

// The wizard's calls on a real core: real SQLite, the real engine, real HTTP to the fake LLM server.
describe('brainstorm API', () => {
  let llm: FakeLlmServer
  let home: ReturnType<typeof makeTempDir>
  let work: ReturnType<typeof makeTempDir>
  let core: Core
  let projectId: number
  let dir: string
  let seen: EventEnvelope[]

  async function call<T = unknown>(name: string, input: unknown): Promise<T> {
    const result = await core.dispatch(name, input)
    if (!result.ok) throw Object.assign(new Error(result.error.message), { kind: result.error.kind })
    return result.value as T
  }
  const get = () => call<Got>('brainstorm.get', { projectId })
  /** Polls until the step ran and the session matches (no fixed sleeps). */
  async function settled(check: (g: Got) => boolean = () => true): Promise<Got> {
    const deadline = Date.now() + 15_000
    for (;;) {
      const g = await get()
      if (!g.running && check(g)) return g
      if (Date.now() > deadline) throw new Error(`never settled: ${JSON.stringify(g).slice(0, 800)}`)
      await new Promise((r) => setTimeout(r, 10))
    }
  }
  const answer = (text: string, extra: Record<string, unknown> = {}) =>
    call('brainstorm.answer', { projectId, text, ...extra })

  beforeAll(async () => {
    llm = await startFakeLlmServer()
  })
  afterAll(() => llm.close())
  beforeEach(async () => {
    llm.requests.length = 0
    home = makeTempDir('ralph-home-')
    work = makeTempDir()
    seen = []
    core = createCore({ appDataDir: home.path, env: {}, host: { kind: 'web', openedFrom: 'test' } })
    core.events.subscribe((e) => seen.push(e))
    dir = join(work.path, 'pantry')
    mkdirSync(dir)
    projectId = (await call<{ id: number }>('projects.open', { path: dir })).id
    await call('settings.setProvider', {
      settings: { provider: 'openai-compatible', model: 'fake-model', baseUrl: llm.baseUrl },
    })
  })
  afterEach(async () => {
    await core.close()
    home.cleanup()
    work.cleanup()
  })

  it('runs a quick-mode session from the form to written files and a seeded queue', async () => {
    expect((await get()).session).toBeNull()
    llm.enqueue(docsReply(), reviewReply(5))
    await call('brainstorm.start', { projectId, quick })
    let g = await settled((x) => x.session?.pending?.id === 'drafts')
    expect(g.session!.mode).toBe('quick')
    expect(g.session!.phase).toBe('output')
    expect(g.session!.quickAnswers).toEqual(Object.values(quick))
    expect(g.session!.drafts!.visionLines).toBeLessThanOrEqual(80)
    expect(g.session!.rendered!.roadmap).toMatchObject({ project: 'Pantry' })
    expect(g.session!.usage.calls).toBe(1)
    expect(g.session!.usage.inputTokens).toBeGreaterThan(0)

    await answer('review')
    g = await settled((x) => x.session?.pending?.id === 'finding')
    expect(g.session!.findings).toHaveLength(5)
    for (let i = 0; i < 5; i++) {
      await answer('dismiss')
      g = await settled()
    }
    expect(g.session!.pending).toMatchObject({ id: 'write' })
    await answer('write')
    g = await settled((x) => x.session?.phase === 'done')
    expect(g.session!.written).toEqual(['VISION.md', 'ROADMAP.md'])
    expect(readFileSync(join(dir, 'VISION.md'), 'utf8')).toBe(`${visionDoc()}\n`)
    expect(g.session!.pending).toMatchObject({ id: 'queue' })

    await answer('create')
    g = await settled((x) => x.notice !== null)
    expect(g.notice).toMatch(/^Queued \d+ tasks in 2 specs/)
    expect(g.session!.pending).toBeNull()
    const names = seen.map((e) => e.name)
    expect(names).toContain('brainstorm.changed')
    const events = seen
      .filter((e) => e.name === 'brainstorm.event')
      .map((e) => (e.payload as { event: { type: string } }).event.type)
    expect(events).toEqual(
      expect.arrayContaining(['brainstorm.phase', 'brainstorm.findings', 'brainstorm.written']),
    )
  })

  it('keeps the board and cards the user edited, and drops idea ids the ledger does not hold', async () => {
    llm.enqueue(
      turn('Hi! What are we building?'),
      turn('Is that it?', [], { phaseDone: true, pitch: 'A recipe box that knows the pantry.' }),
      turn('What if it knew your fridge?'),
      turn('More?', [
        { quote: 'scan a receipt', title: 'Receipt scan', domain: 'Core' },
        { quote: 'invented by the model', title: 'Not the user', domain: 'Core' },
      ]),
    )
    await call('brainstorm.start', { projectId })
    await settled((x) => x.session?.pending?.kind === 'open')
    await answer('A recipe box that knows my pantry.')
    await settled((x) => x.session?.pending?.id === 'confirm-pitch')
    await answer('yes')
    await settled((x) => x.session?.pending?.id === 'technique')
    await answer('ai-recommended')
    await settled((x) => x.session?.phase === 'ideate' && x.session.pending?.kind === 'open')
    await answer('I would scan a receipt to fill the pantry')
    let g = await settled((x) => x.session?.ideaCount === 1)
    const ideas = await call<{ ideas: { id: string; title: string }[] }>('brainstorm.ideas', { projectId })
    expect(ideas.ideas.map((i) => `${i.id} ${i.title}`)).toEqual(['I001 Receipt scan'])

    llm.enqueue({
      kind: 'json',
      value: {
        say: 'Themes so far.',
        captured: [],
        phaseDone: false,
        themes: [{ name: 'Pantry input', ideas: ['I001', 'I099', 'i1'], priority: 'Must-have', risk: null }],
      },
    })
    await answer('/organize')
    g = await settled((x) => x.session?.phase === 'organize' && x.session.pending?.kind === 'open')
    expect(g.session!.themes).toEqual([
      { name: 'Pantry input', ideas: ['I001'], priority: 'must', risk: null },
    ])

    llm.enqueue(turn('Noted.'))
    await answer('Here is my board', {
      themes: [{ name: 'Pantry input', ideas: ['I001'], priority: 'should', risk: 'OCR quality' }],
    })
    g = await settled(
      (x) => x.session?.pending?.kind === 'open' && x.session.themes[0]?.priority === 'should',
    )
    expect(g.session!.themes[0]!.risk).toBe('OCR quality')
    // The next model turn is told the user's board.
    const last = llm.requests.at(-1)!.body as { messages: { content: string }[] }
    expect(last.messages.map((m) => m.content).join('\n')).toContain('Pantry input [Should-have] I001')
  })

  it('stops a running step; Continue runs it again from the saved state', async () => {
    llm.enqueue({ kind: 'hang' })
    await call('brainstorm.start', { projectId })
    await expect.poll(async () => (await get()).running).toBe(true)
    // Stopped while the call is in flight (not before it leaves): the scripted hang is the one consumed.
    await expect.poll(() => llm.requests.length).toBe(1)
    await expect(call('brainstorm.start', { projectId })).rejects.toMatchObject({ kind: 'busy' })
    expect(await call('brainstorm.stop', { projectId })).toEqual({ stopped: true })
    let g = await settled()
    expect(g.error).toMatch(/^Stopped/)
    expect(g.session!.due).toBe(true)
    expect(g.session!.pending).toBeNull()

    llm.enqueue(turn('Hi again! What are we building?'))
    await call('brainstorm.start', { projectId })
    g = await settled((x) => x.session?.pending?.kind === 'open')
    expect(g.error).toBeNull()
    expect(g.session!.due).toBe(false)
    expect(g.session!.messages.at(-1)).toMatchObject({
      role: 'facilitator',
      text: 'Hi again! What are we building?',
    })
  })

  it('shows a draft refused twice for editing by hand, validates the edit, and uses it', async () => {
    const bad = docsReply(visionDoc(90), roadmapDoc())
    llm.enqueue(bad, bad)
    await call('brainstorm.start', { projectId, quick })
    let g = await settled((x) => x.session?.pending?.id === 'failed')
    expect(g.session!.problems).toEqual(['VISION.md has 119 lines; the limit is 80.'])
    expect(g.session!.handDraft!.vision).toBe(visionDoc(90))

    const check = await call<{ problems: string[]; visionLines: number }>('brainstorm.check', {
      vision: visionDoc(90),
      roadmap: roadmapDoc(),
    })
    expect(check.visionLines).toBe(119)
    expect(check.problems).toHaveLength(1)
    await expect(
      call('brainstorm.useDraft', { projectId, vision: visionDoc(90), roadmap: roadmapDoc() }),
    ).resolves.toEqual({ accepted: true })
    g = await settled()
    expect(g.session!.pending).toMatchObject({ id: 'failed' })

    await call('brainstorm.useDraft', { projectId, vision: visionDoc(), roadmap: roadmapDoc() })
    g = await settled((x) => x.session?.pending?.id === 'drafts')
    expect(g.session!.drafts!.vision).toBe(visionDoc())
    expect(existsSync(join(dir, 'VISION.md'))).toBe(false)
  })

  it('refuses a quick form while a full session is unfinished, and an answer when nothing is asked', async () => {
    await expect(answer('hello')).rejects.toMatchObject({ kind: 'invalid-input' })
    llm.enqueue(turn('Hi! What are we building?'))
    await call('brainstorm.start', { projectId })
    await settled((x) => x.session?.pending?.kind === 'open')
    await expect(call('brainstorm.start', { projectId, quick })).rejects.toMatchObject({ kind: 'busy' })
    writeFileSync(join(dir, 'VISION.md'), '# mine\n')
    expect((await get()).session!.existing).toEqual({ vision: true, roadmap: false })
  })
})
