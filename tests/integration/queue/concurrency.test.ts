import { spawn } from 'node:child_process'
import { existsSync, mkdirSync, utimesSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import * as queue from '../../../src/main/queue'
import { ShadowGit } from '../../../src/main/snapshots/git'
import { appendHistory, QUEUE_REF } from '../../../src/main/queue/history'
import { write } from '../../../src/main/snapshots/testkit'
import { makeTempDir } from '../../helpers/tempDir'
import { fileAt, refCount, storeGit } from './gitkit'
import { memoryLogger } from '../../../src/main/workspace/logFile'

/** The queue's changes in these tests: failures they survive are kept in memory. */
const options = { logger: memoryLogger() }

const child = fileURLToPath(new URL('./child.ts', import.meta.url))

let dir: string
let cleanup: () => void
beforeEach(() => {
  ;({ path: dir, cleanup } = makeTempDir('ralph-queue-xp-'))
  write(dir, 'spec.md', '# Spec\n')
})
afterEach(() => cleanup())

function addIn(label: string, count: number): Promise<{ code: number | null; ids: string[]; err: string }> {
  const proc = spawn(process.execPath, ['--import', 'tsx', child, 'add', dir, String(count), label], {
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let out = ''
  let err = ''
  proc.stdout.on('data', (b: Buffer) => (out += b.toString()))
  proc.stderr.on('data', (b: Buffer) => (err += b.toString()))
  return new Promise((resolve) =>
    proc.on('close', (code) => resolve({ code, ids: code === 0 ? (JSON.parse(out) as string[]) : [], err })),
  )
}

describe('concurrent mutations', () => {
  it('two processes adding at once: every task lands, each in its own commit, in one line of history', async () => {
    await queue.setSpec({ projectDir: dir, spec: 'spec.md', options })
    const [a, b] = await Promise.all([addIn('a', 6), addIn('b', 6)])
    expect(a.err + b.err).toBe('')
    const state = await queue.queryState({ projectDir: dir })
    expect(state.tasks.map((t) => t.id).sort()).toEqual([...a.ids, ...b.ids].sort())
    expect(state.tasks).toHaveLength(12)
    expect(state.warnings).toEqual([])
    expect(refCount(dir)).toBe(13)
    // Every commit holds one more task than its parent: no change was built on a stale file.
    const commits = storeGit(dir, 'rev-list', '--reverse', QUEUE_REF).trim().split('\n')
    commits.forEach((c, i) => expect(fileAt(dir, c).match(/"t":"task"/g)?.length ?? 0).toBe(i))
    expect(existsSync(join(dir, '.ralph/queue.lock'))).toBe(false)
  }, 120_000)

  it('in one process too (the in-process mutex)', async () => {
    await queue.setSpec({ projectDir: dir, spec: 'spec.md', options })
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) => queue.addTask({ projectDir: dir, name: `t${i}`, options })),
    )
    expect(new Set(results.map((r) => r.commit)).size).toBe(8)
    expect((await queue.queryTasks({ projectDir: dir })).length).toBe(8)
    expect(refCount(dir)).toBe(9)
  })

  it('history writers that race without the lock all land: the ref update is a compare-and-swap with retry', async () => {
    await queue.setSpec({ projectDir: dir, spec: 'spec.md', options })
    const git = new ShadowGit(join(dir, '.ralph/snapshots.git'), dir)
    const messages = Array.from({ length: 10 }, (_, i) => `racer ${i}\n`)
    await Promise.all(messages.map((m, i) => appendHistory(git, `content ${i}\n`, m)))
    const subjects = storeGit(dir, 'log', '--format=%s', QUEUE_REF).trim().split('\n')
    expect(subjects).toHaveLength(11)
    expect(subjects.slice(0, 10).sort()).toEqual(messages.map((m) => m.trim()).sort())
  })

  it('a ref lock left by a killed writer does not block the history forever', async () => {
    await queue.setSpec({ projectDir: dir, spec: 'spec.md', options })
    const lock = join(dir, '.ralph/snapshots.git/refs/ralph/queue.lock')
    mkdirSync(join(lock, '..'), { recursive: true })
    writeFileSync(lock, 'stale')
    const old = new Date(Date.now() - 60_000)
    utimesSync(lock, old, old)
    const r = await queue.addTask({ projectDir: dir, name: 'after a crash', options })
    expect(r.commit).not.toBeNull()
    expect(refCount(dir)).toBe(2)
  })
})
