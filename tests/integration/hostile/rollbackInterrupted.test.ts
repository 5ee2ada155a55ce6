import { spawn } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { RALPH_BIN, runCli } from '../../helpers/cli'
import { makeTempDir } from '../../helpers/tempDir'

const FILES = 2_000
const name = (i: number) => `src/f${String(i).padStart(4, '0')}.txt`
const content = (side: 'A' | 'B', i: number) => `${side} ${i}\n`.repeat(400)

/**
 * kill -9 during `ralph snapshot rollback` or `undo`, several times: each time the next CLI call leaves the tree
 * exactly at one snapshot (every file compared) and says the rollback was interrupted. The real CLI in child
 * processes; the kill comes once the first file has been rewritten (polled, no fixed sleep).
 */
describe('hostile: an interrupted rollback or undo', { timeout: 300_000 }, () => {
  const project = makeTempDir('ralph-project-')
  const home = makeTempDir('ralph-home-')
  const env = { RALPH_HOME: home.path }
  const dir = project.path
  const tags = { A: '', B: '' }

  const write = (side: 'A' | 'B') => {
    for (let i = 0; i < FILES; i++) writeFileSync(join(dir, name(i)), content(side, i))
  }
  const save = async (message: string): Promise<string> => {
    const r = await runCli(['snapshot', 'save', message, '--json', '--project', dir], { env })
    expect(r.code, r.stderr).toBe(0)
    return (JSON.parse(r.stdout) as { snapshot: { tag: string } }).snapshot.tag
  }
  /** Which snapshot every file matches ('A' or 'B'), or the first file that matches neither consistently. */
  const treeState = (): string => {
    const first = readFileSync(join(dir, name(0)), 'utf8') === content('A', 0) ? 'A' : 'B'
    for (let i = 0; i < FILES; i++) {
      const file = join(dir, name(i))
      const text = existsSync(file) ? readFileSync(file, 'utf8') : '(missing)'
      if (text !== content(first, i)) return `mixed: ${name(i)} is not at ${first}`
    }
    expect(readdirSync(join(dir, 'src'))).toHaveLength(FILES)
    return first
  }

  beforeAll(async () => {
    mkdirSync(join(dir, 'src'))
    write('A')
    expect((await runCli(['init', '--project', dir], { env })).code).toBe(0)
    tags.A = await save('all A')
    write('B')
    tags.B = await save('all B')
  })
  afterAll(() => {
    project.cleanup()
    home.cleanup()
  })

  /** Starts the CLI, kills it with SIGKILL once the first file has changed; true when it was still running then. */
  async function killMidway(args: string[], to: 'A' | 'B'): Promise<boolean> {
    const child = spawn(process.execPath, [RALPH_BIN, ...args, '--project', dir], {
      env: { ...process.env, ...env },
      stdio: 'ignore',
    })
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
    let done = false
    void exited.then(() => (done = true))
    const first = join(dir, name(0))
    const changed = () => {
      try {
        return readFileSync(first, 'utf8') === content(to, 0)
      } catch {
        return true // unlinked for its rewrite: the tree is being rewritten
      }
    }
    // Polls the file between event-loop turns, so the child's exit is noticed too.
    while (!done && !changed()) await new Promise((r) => setImmediate(r))
    const killed = !done && child.kill('SIGKILL')
    await exited
    return killed
  }

  it('the next CLI call leaves the tree exactly at one snapshot, and says so', async () => {
    expect(treeState()).toBe('B')
    let interrupted = 0
    const tries: ['rollback' | 'undo', 'A' | 'B'][] = [
      ['rollback', 'A'],
      ['undo', 'B'],
      ['rollback', 'A'],
      ['undo', 'B'],
      ['rollback', 'A'],
      ['undo', 'B'],
    ]
    for (const [action, to] of tries) {
      const args = action === 'rollback' ? ['snapshot', 'rollback', tags.A] : ['snapshot', 'undo']
      const killed = await killMidway(args, to)
      const journal = existsSync(join(dir, '.ralph/snapshots.git/ralph-rollback.json'))
      const status = await runCli(['snapshot', 'status', '--json', '--project', dir], { env })
      expect(status.code, status.stderr).toBe(0)
      const s = JSON.parse(status.stdout) as {
        rollbackNotice: { state: string; target: string; undo: boolean } | null
      }
      if (journal) {
        interrupted++
        const target = action === 'rollback' ? tags.A : expect.stringMatching(/^safety-/)
        expect(status.stderr).toMatch(
          /ralph: (A rollback to|An undo \(the rollback to) \S+\)? was interrupted and has been finished/,
        )
        expect(s.rollbackNotice).toMatchObject({ state: 'finished', target, undo: action === 'undo' })
      } else {
        expect(killed).toBe(false) // a kill during the rewrite always leaves the journal
        expect(s.rollbackNotice).toBeNull()
      }
      expect(treeState(), `${action} to ${to}`).toBe(to)
      expect(existsSync(join(dir, '.ralph/snapshots.git/ralph-rollback.json'))).toBe(false)
      // And the next call is quiet: the notice belongs to the call that finished it.
      const again = await runCli(['snapshot', 'status', '--project', dir], { env })
      expect(again.stderr).not.toContain('interrupted')
    }
    expect(interrupted).toBeGreaterThanOrEqual(3)
  })

  it('reports a rollback it cannot finish safely, and Finish rollback completes it keeping the new file', async () => {
    expect(treeState()).toBe('B')
    let killed = false
    for (let attempt = 0; attempt < 5 && !killed; attempt++) {
      killed = await killMidway(['snapshot', 'rollback', tags.A], 'A')
      if (!killed) {
        expect((await runCli(['snapshot', 'undo', '--project', dir], { env })).code).toBe(0)
      }
    }
    expect(killed).toBe(true)
    // A file the rollback does not explain: someone worked in the half-rolled-back project.
    writeFileSync(join(dir, 'src/new-note.txt'), 'written after the crash\n')

    const status = await runCli(['snapshot', 'status', '--json', '--project', dir], { env })
    expect(status.code, status.stderr).toBe(0)
    expect(status.stderr).toContain(
      `ralph: A rollback to ${tags.A} was interrupted, and the project is partly at ${tags.A}: ` +
        'src/new-note.txt changed since, and the rollback does not change it.',
    )
    const notice = (JSON.parse(status.stdout) as { rollbackNotice: unknown }).rollbackNotice
    expect(notice).toMatchObject({ state: 'interrupted', target: tags.A, undo: false })
    const human = await runCli(['snapshot', 'status', '--project', dir], { env })
    expect(human.stdout).toMatch(/Rollback: A rollback to \S+ was interrupted, .* Finish rollback/)

    const finish = await runCli(['snapshot', 'finish-rollback', '--json', '--project', dir], { env })
    expect(finish.code, finish.stderr).toBe(0)
    const safety = (JSON.parse(finish.stdout) as { report: { safetyTag: string } }).report.safetyTag
    expect(existsSync(join(dir, 'src/new-note.txt'))).toBe(false)
    expect(treeState()).toBe('A')
    const kept = await runCli(['snapshot', 'show', safety, 'src/new-note.txt', '--project', dir], { env })
    expect(kept.stdout).toBe('written after the crash\n')
    const after = await runCli(['snapshot', 'status', '--json', '--project', dir], { env })
    expect((JSON.parse(after.stdout) as { rollbackNotice: unknown }).rollbackNotice).toBeNull()
    expect(after.stderr).toBe('')
  })
})
