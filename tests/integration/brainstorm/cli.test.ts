import { memoryLogger } from '../../../src/main/workspace/logFile'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { PassThrough, Readable } from 'node:stream'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { brainstormCommand, runBrainstorm } from '../../../src/main/cli/commands/brainstorm'
import { parseCommandArgs } from '../../../src/main/cli/args'
import type { CliContext } from '../../../src/main/cli/types'
import { ledgerPath } from '../../../src/main/brainstorm'
import { startFakeLlmServer, type FakeLlmServer } from '../../fixtures/fakeLlmServer'
import { makeTempDir } from '../../helpers/tempDir'
import { docsReply, reviewReply, turn, visionDoc } from './fixtures'

let server: FakeLlmServer
let home: ReturnType<typeof makeTempDir>
let work: ReturnType<typeof makeTempDir>
beforeEach(async () => {
  server = await startFakeLlmServer()
  home = makeTempDir('ralph-home-')
  work = makeTempDir('ralph-work-')
})
afterEach(async () => {
  await server.close()
  home.cleanup()
  work.cleanup()
})

function collector() {
  const stream = new PassThrough()
  let text = ''
  stream.on('data', (c: Buffer) => (text += c.toString('utf8')))
  return { stream, text: () => text }
}

/** `ralph brainstorm <args>` in-process, its stdin fed from `lines` (end of input after the last). */
async function brainstorm(
  args: string[],
  lines: string[] | Readable,
  signal = new AbortController().signal,
  onStdout?: (text: string) => void,
) {
  const stdout = collector()
  if (onStdout) stdout.stream.on('data', () => onStdout(stdout.text()))
  const stderr = collector()
  const { values, positionals } = parseCommandArgs('brainstorm', args, brainstormCommand.options)
  const ctx: CliContext = {
    logger: memoryLogger(),
    projectDir: work.path,
    json: values.json === true,
    positionals,
    values,
    env: {
      RALPH_HOME: home.path,
      RALPH_PROVIDER: 'openai-compatible',
      RALPH_MODEL: 'fake-model',
      RALPH_BASE_URL: server.baseUrl,
      RALPH_API_KEY: '',
      OPENAI_API_KEY: '',
      ANTHROPIC_API_KEY: '',
    },
    stdout: stdout.stream,
    stderr: stderr.stream,
    signal,
  }
  const input = Array.isArray(lines) ? Readable.from(lines.map((l) => `${l}\n`)) : lines
  const code = await runBrainstorm(ctx, input)
  const events = ctx.json
    ? stdout
        .text()
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { type: string; [k: string]: unknown })
    : []
  return { code, stdout: stdout.text(), stderr: stderr.text(), events }
}

const quickAnswers = [
  'A recipe box that knows my pantry.',
  'URL import; pantry list; missing ingredients',
  'No social feed',
  'Two months, one developer, web only',
  'Three recipes imported in five minutes',
]

describe('ralph brainstorm', () => {
  it('--quick --json --yes: a whole session from stdin lines to written files, exit 0', async () => {
    server.enqueue(docsReply(), reviewReply(5))
    const r = await brainstorm(['--quick', '--json', '--yes'], quickAnswers)
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    const types = r.events.map((e) => e.type)
    expect(types.every((t) => t.startsWith('brainstorm.'))).toBe(true)
    expect(r.events.filter((e) => e.type === 'brainstorm.phase').map((e) => [e.from, e.to])).toEqual([
      [null, 'quick'],
      ['quick', 'output'],
      ['output', 'review'],
      ['review', 'done'],
    ])
    expect(r.events.find((e) => e.type === 'brainstorm.findings')!.findings).toHaveLength(5)
    expect(r.events.filter((e) => e.type === 'brainstorm.written')).toEqual([
      { type: 'brainstorm.written', files: ['VISION.md', 'ROADMAP.md'] },
    ])
    expect(readFileSync(join(work.path, 'VISION.md'), 'utf8')).toBe(`${visionDoc()}\n`)
    expect(existsSync(join(work.path, 'ROADMAP.md'))).toBe(true)
    expect(readFileSync(ledgerPath(work.path), 'utf8')).toContain('- phase: done')
  })

  it('--json --yes: a whole seven-phase session, every phase in order, ideas in the ledger, exit 0', async () => {
    server.enqueue(
      turn('Hi! What are we building, and for whom?'),
      turn('So: a recipe box for busy parents that knows the pantry. Is that it?', [], {
        phaseDone: true,
        pitch: 'A pantry-aware recipe box for busy parents.',
      }),
      turn('What if the recipe box could see your fridge?'),
      turn('Two good ones. What else?', [
        { quote: 'scan a receipt', title: 'Receipt scan', domain: 'Core' },
        { quote: 'expiry reminders', title: 'Expiry reminders', domain: 'UX' },
      ]),
      turn('Themes: Pantry (I001, I002). Must-haves?'),
      turn('Agreed: both are must-haves.', [], { phaseDone: true }),
      turn('Vision: … Do you approve?'),
      turn('Approved.', [], { phaseDone: true }),
      docsReply(),
      reviewReply(7),
    )
    const r = await brainstorm(
      ['--json', '--yes'],
      [
        'A recipe box for busy parents that knows what is in the pantry.',
        'I want to scan a receipt, and expiry reminders.',
        '/organize',
        'Both are must-haves; speed to MVP.',
        'Approved as written.',
      ],
    )
    expect(r.code).toBe(0)
    expect(r.events.filter((e) => e.type === 'brainstorm.phase').map((e) => e.to)).toEqual([
      'setup',
      'technique',
      'ideate',
      'organize',
      'crystallize',
      'output',
      'review',
      'done',
    ])
    expect(r.events.filter((e) => e.type === 'brainstorm.idea')).toEqual([
      { type: 'brainstorm.idea', id: 'I001', title: 'Receipt scan', domain: 'Core' },
      { type: 'brainstorm.idea', id: 'I002', title: 'Expiry reminders', domain: 'UX' },
    ])
    expect(r.events.find((e) => e.type === 'brainstorm.written')).toEqual({
      type: 'brainstorm.written',
      files: ['VISION.md', 'ROADMAP.md'],
    })
    const ledger = readFileSync(ledgerPath(work.path), 'utf8')
    expect(ledger).toContain('- one_sentence_pitch: A pantry-aware recipe box for busy parents.')
    expect(ledger).toContain('I002 [UX] Expiry reminders — expiry reminders')
    expect(server.requests).toHaveLength(10)
  })

  it('a model answer that is not JSON is asked once more', async () => {
    server.enqueue({ kind: 'text', text: 'Sure! Here are your documents.' }, docsReply(), reviewReply(5))
    const r = await brainstorm(['--quick', '--json', '--yes'], quickAnswers)
    expect(r.code).toBe(0)
    expect(JSON.stringify(server.requests[1]!.body)).toContain('The model did not answer with JSON')
  })

  it('answers a closed choice by number or label and asks again on anything else', async () => {
    server.enqueue(docsReply(), reviewReply(5), docsReply())
    const r = await brainstorm(
      ['--quick', '--json'],
      [
        ...quickAnswers,
        'sounds fine',
        '1',
        'Apply',
        'dismiss',
        '2',
        'Dismiss',
        'DISMISS',
        'nope',
        'Write files',
      ],
    )
    expect(r.code).toBe(0)
    const asked = r.events.filter(
      (e) => e.type === 'brainstorm.say' && String(e.text).startsWith('Please answer'),
    )
    expect(asked).toHaveLength(2)
    const choices = r.events.filter((e) => e.type === 'brainstorm.say' && e.choice)
    expect(choices[0]).toMatchObject({
      choice: {
        id: 'drafts',
        default: 'review',
        options: [
          { n: 1, value: 'review', label: 'Looks right: run the review' },
          { n: 2, value: 'change', label: 'Change something' },
        ],
      },
    })
    // the applied finding went to the model as a revision request
    expect(JSON.stringify(server.requests[2]!.body)).toContain('fix these review findings')
    expect(r.events.filter((e) => e.type === 'brainstorm.written')).toHaveLength(1)
  })

  it('end of input mid-session saves it (exit 3); the next run resumes with the same answers', async () => {
    const first = await brainstorm(['--quick', '--json'], quickAnswers.slice(0, 2))
    expect(first.code).toBe(3)
    expect(first.events.at(-1)).toEqual({ type: 'brainstorm.say', text: expect.stringMatching(/non-goals/) })
    expect(server.requests).toHaveLength(0)

    server.enqueue(docsReply(), reviewReply(5))
    const second = await brainstorm(['--json', '--yes'], quickAnswers.slice(2))
    expect(second.code).toBe(0)
    expect(second.events[0]).toEqual({ type: 'brainstorm.phase', from: null, to: 'quick' })
    const outputPrompt = JSON.stringify(server.requests[0]!.body)
    expect(outputPrompt).toContain('A recipe box that knows my pantry.')
    expect(outputPrompt).toContain('Three recipes imported in five minutes')
    expect(existsSync(join(work.path, 'VISION.md'))).toBe(true)
  })

  it('Ctrl+C while waiting for an answer: exit 130, the session resumes where it was', async () => {
    const controller = new AbortController()
    const stdin = new PassThrough()
    stdin.write(`${quickAnswers[0]}\n`)
    const r = await brainstorm(['--quick'], stdin, controller.signal, (text) => {
      // abort once the second question is on screen (the first answer was taken)
      if (text.includes('must-haves')) controller.abort()
    })
    expect(r.code).toBe(130)
    expect(r.stderr).toContain('the session is saved')
    stdin.end()

    server.enqueue(docsReply(), reviewReply(5))
    const again = await brainstorm(['--json', '--yes'], quickAnswers.slice(1))
    expect(again.code).toBe(0)
    expect(JSON.stringify(server.requests[0]!.body)).toContain(quickAnswers[0])
  })

  it('shows readable prompts and numbered choices in a terminal', async () => {
    server.enqueue(docsReply(), reviewReply(5))
    const r = await brainstorm(['--quick', '--yes'], quickAnswers)
    expect(r.code).toBe(0)
    expect(r.stdout).toContain('── QUICK MODE ──')
    expect(r.stdout).toContain('Describe what you are building')
    expect(r.stdout).toMatch(/1\. Looks right: run the review \(default\)/)
    expect(r.stdout).toContain('Review findings (5):')
    expect(r.stdout).toContain('Wrote VISION.md and ROADMAP.md.')
  })

  it('in a terminal, IDEATE shows each new idea and the counters before the prompt', async () => {
    server.enqueue(
      turn('Hi! What are we building?'),
      turn('Is that it?', [], { phaseDone: true, pitch: 'A recipe box.' }),
      turn('What if it saw your fridge?'),
      turn('What else?', [{ quote: 'scan a receipt', title: 'Receipt scan', domain: 'Core' }]),
    )
    const r = await brainstorm(['--yes'], ['A recipe box.', 'I would scan a receipt.'])
    expect(r.code).toBe(3)
    expect(r.stdout).toContain("> Yes, that's it (--yes)") // the pitch confirmed by its default
    expect(r.stdout).toContain('  + I001 [Core] Receipt scan')
    expect(r.stdout).toContain(
      '[1 ideas · 1/12 domains · lens: What-If Scenarios · next interrupt at 20]\n> ',
    )
  })

  it('without a configured provider: exit 5 and a clear message', async () => {
    const stdout = collector()
    const stderr = collector()
    const code = await runBrainstorm(
      {
        logger: memoryLogger(),
        projectDir: work.path,
        json: false,
        positionals: [],
        values: {},
        env: { RALPH_HOME: home.path, RALPH_PROVIDER: '', RALPH_MODEL: '' },
        stdout: stdout.stream,
        stderr: stderr.stream,
        signal: new AbortController().signal,
      },
      Readable.from([]),
    )
    expect(code).toBe(5)
    expect(stderr.text()).toContain('No LLM provider is configured')
  })
})
