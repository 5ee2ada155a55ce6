import { join } from 'node:path'
import type { BrainstormEvent, Finding } from '../../../src/shared/brainstorm'
import { BrainstormSession, type BrainstormDeps } from '../../../src/main/brainstorm'
import type { ModelConfig } from '../../../src/main/llm/createModel'
import { openDatabase, type Db } from '../../../src/main/store/database'
import { memoryLogger } from '../../../src/main/workspace/logFile'
import { BrainstormRepo } from '../../../src/main/store/brainstormRepo'
import { startFakeLlmServer, type ScriptedReply } from '../../fixtures/fakeLlmServer'
import { makeTempDir } from '../../helpers/tempDir'

export const fast = { baseDelayMs: 5, maxDelayMs: 20, jitter: 0 }

/** A facilitation answer (phases 1–5). */
export function turn(
  say: string,
  captured: { quote: string; title: string; domain?: string; novelty?: string | null }[] = [],
  extra: { phaseDone?: boolean; pitch?: string | null } = {},
): ScriptedReply {
  return {
    kind: 'json',
    value: {
      say,
      captured: captured.map((c) => ({ domain: 'Core', novelty: null, ...c })),
      phaseDone: extra.phaseDone ?? false,
      pitch: extra.pitch ?? null,
    },
  }
}

export function visionDoc(extraLines = 0): string {
  return [
    '# VISION',
    '',
    '```yaml',
    'vision_yaml<=300t:',
    '  problem:',
    '    why: "Recipes are scattered across apps and notebooks"',
    '    pain: ["Cannot find a recipe while cooking", "Shopping lists are retyped"]',
    '  solution:',
    '    what: "A pantry-aware recipe box for home cooks"',
    '    boundaries: "Personal use only; no social feed"',
    '  users:',
    '    primary: "Home cooks who plan weekly meals"',
    '    environments: ["phone", "laptop"]',
    '  key_differentiators:',
    '    - "Knows what is in the pantry"',
    '  mvp_scope:',
    '    in:',
    '      - "Import a recipe from a URL"',
    '    out:',
    '      - "Meal delivery"',
    '  success_metrics:',
    '    - "A new user imports 3 recipes within 5 minutes"',
    '  non_goals:',
    '    - "No social network"',
    '  assumptions:',
    '    - "Users cook at least twice a week"',
    '  open_questions:',
    '    - "Which recipe sites block scraping?"',
    ...Array.from({ length: extraLines }, (_, i) => `# filler ${i}`),
    '```',
  ].join('\n')
}

export function roadmapDoc(): string {
  return [
    '# ROADMAP',
    '',
    '```yaml',
    'version: "0.1"',
    'project: "Pantry"',
    'goal: "Ship a recipe box that knows the pantry"',
    'tracks:',
    '  - id: 1',
    '    name: "Recipe import"',
    '    goal: "Import recipes from URLs."',
    '    deliverables:',
    '      - "URL importer"',
    '      - "Recipe list view"',
    '    done_when:',
    '      - "DET: npm test passes with the importer tests"',
    '      - "Importing a known URL yields its title and ingredients"',
    '    dependencies: []',
    '  - id: 2',
    '    name: "Pantry"',
    '    goal: "Track what is at home."',
    '    deliverables:',
    '      - "Pantry list"',
    '    done_when:',
    '      - "A recipe shows which ingredients are missing"',
    '    dependencies: [1]',
    'milestones:',
    '  - "Import works end to end"',
    'risks:',
    '  - "Sites change their markup"',
    'definition_of_done:',
    '  - "All tracks done"',
    '```',
  ].join('\n')
}

export const docsReply = (vision = visionDoc(), roadmap = roadmapDoc()): ScriptedReply => ({
  kind: 'json',
  value: { vision, roadmap },
})

export function findings(n: number): Finding[] {
  const sev = ['HIGH', 'MED', 'LOW'] as const
  return Array.from({ length: n }, (_, i) => ({
    severity: sev[i % 3]!,
    what: `Problem ${i + 1}`,
    why: `It matters ${i + 1}`,
    fix: `Fix ${i + 1}`,
  }))
}
export const reviewReply = (n: number): ScriptedReply => ({ kind: 'json', value: { findings: findings(n) } })

/** A project folder, a real SQLite file, a fake LLM server, and a way to open sessions on them. */
export async function makeWorld() {
  const dir = makeTempDir('ralph-brainstorm-')
  const home = makeTempDir('ralph-home-')
  const server = await startFakeLlmServer()
  const model: ModelConfig = {
    provider: 'openai-compatible',
    model: 'fake-model',
    baseUrl: server.baseUrl,
    apiKey: null,
  }
  const dbFile = join(home.path, 'ralph.db')
  let db: Db = openDatabase(dbFile)
  const events: BrainstormEvent[] = []
  const world = {
    dir: dir.path,
    home: home.path,
    server,
    model,
    events,
    get db() {
      return db
    },
    repo: () => new BrainstormRepo(db),
    /** Closes and reopens the database: what a restart of the app does. */
    reopen() {
      db.close()
      db = openDatabase(dbFile)
    },
    async open(options: { quick?: boolean } = {}, deps: Partial<BrainstormDeps> = {}) {
      const session = await BrainstormSession.open(
        {
          projectDir: dir.path,
          projectId: null,
          repo: new BrainstormRepo(db),
          model,
          signal: new AbortController().signal,
          emit: (e) => events.push(e),
          retry: fast,
          logger: memoryLogger(),
          ...deps,
        },
        options,
      )
      await session.run()
      return session
    },
    enqueue: (...replies: ScriptedReply[]) => server.enqueue(...replies),
    /** The prompt text (system + user) of the nth chat request. */
    promptOf(n: number): string {
      const body = server.requests.filter((r) => r.path === '/v1/chat/completions')[n]?.body as {
        messages: { content: string }[]
      }
      return body.messages.map((m) => m.content).join('\n')
    },
    chatCount: () => server.requests.filter((r) => r.path === '/v1/chat/completions').length,
    of: <T extends BrainstormEvent['type']>(type: T) =>
      events.filter((e): e is Extract<BrainstormEvent, { type: T }> => e.type === type),
    async cleanup() {
      db.close()
      await server.close()
      dir.cleanup()
      home.cleanup()
    },
  }
  return world
}

/** Walks a full session through SETUP and TECHNIQUE into IDEATE (three model turns). */
export async function intoIdeate(world: Awaited<ReturnType<typeof makeWorld>>) {
  world.enqueue(
    turn('Hi! What are we building?'),
    turn('Great. Is that it?', [], { phaseDone: true, pitch: 'A pantry-aware recipe box for home cooks.' }),
    turn('Under What-If Scenarios: what if the recipe box knew your fridge?'),
  )
  const session = await world.open()
  await session.answer('A recipe box for home cooks that knows my pantry; users are busy parents.')
  await session.answer("Yes, that's it")
  await session.answer('2')
  return session
}

/** One IDEATE exchange: the user lists n ideas, the model captures each with its exact words. */
export function ideasAnswer(from: number, n: number): { answer: string; reply: ScriptedReply } {
  const items = Array.from({ length: n }, (_, i) => `idea number ${from + i} about thing ${from + i}`)
  return {
    answer: items.join('; '),
    reply: turn(
      'More?',
      items.map((q, i) => ({ quote: q, title: `Idea ${from + i}` })),
    ),
  }
}
