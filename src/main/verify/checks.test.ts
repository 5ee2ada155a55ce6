import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { makeTempDir } from '../../../tests/helpers/tempDir'
import { runShellCommand } from '../tools'
import { memoryLogger } from '../workspace/logFile'
import { parseCriteria } from '../queue/criteria'
import type { ChangedFile } from './changes'
import { blockedPathRule } from '../secrets'
import { criterionCommand, runDeterministicChecks, type RunCommand } from './checks'

const file = (path: string, added: string[] = ['x'], extra: Partial<ChangedFile> = {}): ChangedFile => ({
  path,
  status: 'modified',
  opaque: false,
  additions: added.length,
  deletions: 0,
  hunks: [],
  added: added.map((text, i) => ({ line: i + 1, text })),
  ...extra,
})

/** Commands "pass" when they contain "ok"; records what ran. */
function commands() {
  const ran: string[] = []
  const run: RunCommand = async (command) => {
    ran.push(command)
    const ok = command.includes('ok')
    return { exitCode: ok ? 0 : 1, timedOut: false, output: ok ? 'all good' : 'boom' }
  }
  return { ran, run }
}

const base = { commandTimeoutMs: 1000, signal: new AbortController().signal }

describe('blockedPathRule (re-exported for Commit to my git; every pattern in blockedPaths.test.ts)', () => {
  it('is the same rule the verdict uses', () => {
    expect(blockedPathRule('app/.env.production')).toBe('.env.*')
    expect(blockedPathRule('src/environment.ts')).toBeNull()
  })
})

describe('criterionCommand', () => {
  it('finds a backticked command or a leading runner', () => {
    expect(criterionCommand('`npm test` passes')).toBe('npm test')
    expect(criterionCommand('All tests pass: `pytest -q`')).toBe('pytest -q')
    expect(criterionCommand('pytest tests/test_parser.py passes')).toBe('pytest tests/test_parser.py')
    expect(criterionCommand('`./scripts/check.sh` exits 0')).toBe('./scripts/check.sh')
    expect(criterionCommand('All tests pass with at least one new test')).toBeNull()
    expect(criterionCommand('The `greet` function exists')).toBeNull()
    expect(criterionCommand('`greet()` passes its own checks')).toBeNull()
    expect(criterionCommand('`just check-all` passes')).toBe('just check-all')
  })

  it('runs any backticked command line, with or without "passes" (#26: DET: `test -f app.js`)', () => {
    expect(criterionCommand('`test -f app.js`')).toBe('test -f app.js')
    expect(criterionCommand('app.js exists: `test -f app.js`')).toBe('test -f app.js')
    expect(criterionCommand('`app.js` exists (`test -f app.js`)')).toBe('test -f app.js')
    expect(criterionCommand('`grep -q Hello index.html`')).toBe('grep -q Hello index.html')
    expect(criterionCommand('The file `app.js` exists')).toBeNull()
  })
})

describe('runDeterministicChecks', () => {
  it('passes a clean diff and runs each command once, even when a criterion repeats it', async () => {
    const c = commands()
    const r = await runDeterministicChecks({
      ...base,
      files: [file('src/a.ts')],
      commands: { build: 'never run', test: 'ok-test', lint: 'ok-lint' },
      criteria: parseCriteria(['DET: `ok-test` passes', 'DET: no lint errors', 'LLM: nice']),
      runCommand: c.run,
    })
    expect(c.ran).toEqual(['ok-test', 'ok-lint'])
    expect(r.verdicts.map((v) => [v.ref, v.answer])).toEqual([
      ['blocked-paths', 'YES'],
      ['secrets', 'YES'],
      ['test', 'YES'],
      ['lint', 'YES'],
      ['AC1', 'YES'],
      ['AC2', 'YES'],
    ])
    expect(r.verdicts.find((v) => v.ref === 'AC2')!.reason).toMatch(/^By the lint check/)
    expect(r.outputs.map((o) => o.command)).toEqual(['ok-test', 'ok-lint'])
  })

  it('fails on a failing command, and a DET criterion mapped to it fails too', async () => {
    const c = commands()
    const r = await runDeterministicChecks({
      ...base,
      files: [file('src/a.ts')],
      commands: { build: null, test: 'npm test', lint: null },
      criteria: parseCriteria(['DET: all tests pass', 'DET: the build is reproducible']),
      runCommand: c.run,
    })
    const byRef = Object.fromEntries(r.verdicts.map((v) => [v.ref, v]))
    expect(byRef.test).toMatchObject({ answer: 'NO', reason: '`npm test` exited with 1: boom' })
    expect(byRef.AC1!.answer).toBe('NO')
    expect(byRef.AC2).toMatchObject({ answer: 'NO', reason: 'The deterministic checks failed: test.' })
  })

  it('is NEEDS_HUMAN for a test criterion when the project has no test command', async () => {
    const r = await runDeterministicChecks({
      ...base,
      files: [file('src/a.ts')],
      commands: { build: null, test: null, lint: null },
      criteria: parseCriteria(['DET: all tests pass']),
      runCommand: commands().run,
    })
    expect(r.verdicts.at(-1)).toMatchObject({ ref: 'AC1', answer: 'NEEDS_HUMAN' })
    expect(r.verdicts.at(-1)!.reason).toContain('.ralph/config.json')
  })

  it('checks diff size against 3× the estimate only when there is one', async () => {
    const files = [file('a.ts', ['1', '2', '3', '4']), file('b.ts', ['5', '6', '7'])]
    const run = commands().run
    const commandsNone = { build: null, test: null, lint: null }
    const within = await runDeterministicChecks({
      ...base,
      files,
      commands: commandsNone,
      criteria: [],
      runCommand: run,
      estimatedDiff: 3,
    })
    expect(within.verdicts.find((v) => v.ref === 'diff-size')).toMatchObject({ answer: 'YES' })
    const over = await runDeterministicChecks({
      ...base,
      files,
      commands: commandsNone,
      criteria: [],
      runCommand: run,
      estimatedDiff: 2,
    })
    expect(over.verdicts.find((v) => v.ref === 'diff-size')!.reason).toMatch(
      /^7 changed lines, more than 3× the estimate of 2 \(6\)/,
    )
    const none = await runDeterministicChecks({
      ...base,
      files,
      commands: commandsNone,
      criteria: [],
      runCommand: run,
    })
    expect(none.verdicts.some((v) => v.ref === 'diff-size')).toBe(false)
  })

  it('flags a rename out of a blocked path and a secret in an added line', async () => {
    const r = await runDeterministicChecks({
      ...base,
      files: [
        file('config/settings.json', ['{}'], { status: 'renamed', oldPath: 'config/prod.pem' }),
        file('src/k.ts', ['const k = "AKIAQ3ZLMN4PRT7XVW2Y"']),
      ],
      commands: { build: null, test: null, lint: null },
      criteria: [],
      runCommand: commands().run,
    })
    expect(r.verdicts.find((v) => v.ref === 'blocked-paths')!.reason).toContain('config/prod.pem (*.pem)')
    expect(r.verdicts.find((v) => v.ref === 'secrets')!.reason).toContain('src/k.ts:1')
  })

  it('names every blocked file with its rule, whatever its case, and states the rules in the verdict', async () => {
    const r = await runDeterministicChecks({
      ...base,
      files: [file('prod.env'), file('deploy/.ENV'), file('keys/server.PEM'), file('.env.example')],
      commands: { build: null, test: null, lint: null },
      criteria: [],
      runCommand: commands().run,
    })
    const v = r.verdicts.find((v) => v.ref === 'blocked-paths')!
    expect(v.answer).toBe('NO')
    expect(v.text).toMatch(/^No change to blocked paths \(\.git\/, .*\*\.env, .*secrets\.y\*ml.*\)$/)
    expect(v.reason).toContain('prod.env (*.env), deploy/.ENV (.env), keys/server.PEM (*.pem).')
    expect(v.reason).not.toContain('.env.example')
  })
})

describe('a backticked DET command through the sandboxed shell (#26)', () => {
  it('passes when `test -f app.js` finds the file and fails when it does not', async () => {
    const project = makeTempDir('ralph-det-')
    try {
      const run: RunCommand = (command, timeoutMs, signal) =>
        runShellCommand(command, { cwd: project.path, timeoutMs, signal, logger: memoryLogger() })
      const check = () =>
        runDeterministicChecks({
          ...base,
          commandTimeoutMs: 20_000,
          files: [file('app.js')],
          commands: { build: null, test: null, lint: null },
          criteria: parseCriteria(['DET: `test -f app.js`']),
          runCommand: run,
        })
      const missing = (await check()).verdicts.find((v) => v.ref === 'AC1')!
      expect(missing).toMatchObject({ answer: 'NO' })
      expect(missing.reason).toMatch(/^`test -f app.js` exited with 1/)
      writeFileSync(join(project.path, 'app.js'), 'console.log(1)\n')
      expect((await check()).verdicts.find((v) => v.ref === 'AC1')).toMatchObject({
        answer: 'YES',
        reason: '`test -f app.js` passed.',
      })
    } finally {
      project.cleanup()
    }
  })
})
