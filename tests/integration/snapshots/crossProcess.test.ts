import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { SnapshotEngine } from '../../../src/main/snapshots'
import { fingerprint, removeDir, tempProject, write } from '../../../src/main/snapshots/testkit'
import { memoryLogger } from '../../../src/main/workspace/logFile'

const child = fileURLToPath(new URL('./child.ts', import.meta.url))
const skipLock = (rel: string): boolean => rel.startsWith('.ralph/') && rel.endsWith('.lock')

let dir: string
beforeEach(() => {
  dir = tempProject('ralph-snap-xp-')
})
afterEach(() => removeDir(dir))

function start(...args: string[]): {
  proc: ChildProcess
  ready: Promise<void>
  done: Promise<{ code: number | null; out: string; err: string }>
} {
  const proc = spawn(process.execPath, ['--import', 'tsx', child, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let out = ''
  let err = ''
  let markReady: () => void = () => {}
  const ready = new Promise<void>((r) => (markReady = r))
  proc.stdout!.on('data', (b: Buffer) => {
    out += b.toString()
    if (out.includes('ready\n')) markReady()
  })
  proc.stderr!.on('data', (b: Buffer) => (err += b.toString()))
  const done = new Promise<{ code: number | null; out: string; err: string }>((resolve) =>
    proc.on('close', (code) => {
      markReady()
      resolve({ code, out, err })
    }),
  )
  return { proc, ready, done }
}

function manyFiles(n: number, tagContent: string): void {
  for (let i = 0; i < n; i++) write(dir, `src/d${i % 40}/f${i}.txt`, `${tagContent} ${i}\n`)
}

describe('two processes on one project', () => {
  it('serialises concurrent saves: every save gets its own tag and the store stays sound', async () => {
    write(dir, 'a.txt', 'a')
    await new SnapshotEngine({ projectDir: dir, logger: memoryLogger() }).open()
    const a = start('save', dir, '5')
    const b = start('save', dir, '5')
    const [ra, rb] = await Promise.all([a.done, b.done])
    expect(ra.err + rb.err).toBe('')
    expect([ra.code, rb.code]).toEqual([0, 0])
    const tags = [...JSON.parse(ra.out.split('\n')[1]!), ...JSON.parse(rb.out.split('\n')[1]!)] as string[]
    expect(new Set(tags).size).toBe(10)
    const engine = new SnapshotEngine({ projectDir: dir, logger: memoryLogger() })
    expect((await engine.list()).total).toBe(10)
    expect(existsSync(join(dir, '.ralph/snapshots.lock'))).toBe(false)
  }, 120_000)
})

describe('kill -9 at any moment', () => {
  it('during save: the store still opens, lists and rolls back', async () => {
    manyFiles(1500, 'v1')
    const engine = new SnapshotEngine({ projectDir: dir, logger: memoryLogger() })
    await engine.save({ kind: 'task-pre', task: 1 })
    const atPre = fingerprint(dir, { skip: skipLock })
    for (const delay of [5, 40, 120, 300]) {
      manyFiles(1500, `v-${delay}`)
      write(dir, `extra-${delay}.txt`, 'x')
      const c = start('save', dir, '3')
      await c.ready
      await new Promise((r) => setTimeout(r, delay))
      c.proc.kill('SIGKILL')
      await c.done
      const fresh = new SnapshotEngine({ projectDir: dir, logger: memoryLogger() })
      await fresh.open()
      expect((await fresh.list()).items.some((s) => s.tag === 'task-1-pre')).toBe(true)
      await fresh.rollback('task-1-pre')
      expect(fingerprint(dir, { skip: skipLock })).toEqual(atPre)
    }
  }, 180_000)

  it('during rollback: the store opens and a new rollback completes, undo included', async () => {
    manyFiles(2000, 'v1')
    const engine = new SnapshotEngine({ projectDir: dir, logger: memoryLogger() })
    await engine.save({ kind: 'task-pre', task: 1 })
    const atPre = fingerprint(dir, { skip: skipLock })
    for (const delay of [20, 80, 200, 400]) {
      manyFiles(2000, `v-${delay}`)
      write(dir, `late-${delay}.txt`, 'late')
      const before = fingerprint(dir, { skip: skipLock })
      const earlier = new Set((await engine.list({ kind: 'safety' })).items.map((s) => s.tag))
      const c = start('rollback', dir, 'task-1-pre')
      await c.ready
      await new Promise((r) => setTimeout(r, delay))
      c.proc.kill('SIGKILL')
      await c.done
      const fresh = new SnapshotEngine({ projectDir: dir, logger: memoryLogger() })
      await fresh.open()
      const r = await fresh.rollback('task-1-pre')
      expect(fingerprint(dir, { skip: skipLock })).toEqual(atPre)
      // Nothing was lost: the killed rollback's own safety snapshot (or, if it died before taking one and so
      // before writing anything, ours) holds the state from before it.
      const mine = (await fresh.list({ kind: 'safety' })).items
        .map((s) => s.tag)
        .filter((t) => !earlier.has(t))
      const childSafety = mine.find((t) => t !== r.safetyTag)
      await fresh.rollback(childSafety ?? r.safetyTag!)
      expect(fingerprint(dir, { skip: skipLock })).toEqual(before)
      await fresh.rollback('task-1-pre')
    }
  }, 240_000)
})
