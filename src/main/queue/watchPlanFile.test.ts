import { mkdirSync, renameSync, writeFileSync, type watch as fsWatch } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { useTempDir } from '../workspace/testkit'
import { armSteps, changedSince, watchRalphFolder, type RalphChange, type RalphWatch } from './watchPlanFile'

// Real folders, real fs.watch: what the CLI, a shell or an editor does to .ralph/ is reported, once settled.
describe('watchRalphFolder', () => {
  const dir = useTempDir('ralph-watch-')
  let open: RalphWatch[]
  const ralph = (...parts: string[]) => join(dir.path, '.ralph', ...parts)

  /** A watch whose reports are collected, each one as a sorted list. */
  function start(options: Parameters<typeof watchRalphFolder>[2] = {}) {
    const reports: RalphChange[][] = []
    const watch = watchRalphFolder(dir.path, (changes) => reports.push([...changes].sort()), {
      debounceMs: 30,
      ...options,
    })
    open.push(watch)
    return { watch, reports }
  }

  beforeEach(() => {
    open = []
  })
  afterEach(() => {
    for (const w of open) w.close()
  })

  it('reports plan.jsonl written in place and replaced by rename, notes, and the plan; a temp file alone is nothing', async () => {
    mkdirSync(ralph(), { recursive: true })
    writeFileSync(ralph('plan.jsonl'), '{"t":"spec","spec":"a.md"}\n')
    const { watch, reports } = start()
    await watch.ready
    expect(watch.mode).toBe('watch')

    // `ralph task add` in a terminal: written in place.
    writeFileSync(ralph('plan.jsonl'), '{"t":"spec","spec":"b.md"}\n')
    await expect.poll(() => reports).toEqual([['queue']])

    // An atomic write: a temp file, then a rename onto plan.jsonl. The temp file on its own changes nothing.
    writeFileSync(ralph('.plan.jsonl.1.ab.tmp'), '{"t":"spec","spec":"c.md"}\n')
    renameSync(ralph('.plan.jsonl.1.ab.tmp'), ralph('plan.jsonl'))
    await expect.poll(() => reports).toEqual([['queue'], ['queue']])

    // A build's escalation note: the folder appears with its first file.
    mkdirSync(ralph('notifications'))
    writeFileSync(ralph('notifications', 'escalation-2026.md'), '# Escalated\n')
    await expect.poll(() => reports.at(-1)).toEqual(['notifications'])
    // Another note in the now-watched folder.
    const seen = reports.length
    writeFileSync(ralph('notifications', 'complete-2026.md'), '# Done\n')
    await expect.poll(() => reports.slice(seen)).toEqual([['notifications']])

    writeFileSync(ralph('plan.tsx'), 'export default <Plan />\n')
    await expect.poll(() => reports.at(-1)).toEqual(['plan'])
  })

  it('waits for .ralph/ to exist, and follows it when a rollback replaces the folder', async () => {
    const { watch, reports } = start()
    await watch.ready
    mkdirSync(ralph())
    writeFileSync(ralph('plan.jsonl'), '{"t":"spec","spec":"a.md"}\n')
    await expect.poll(() => reports.flat()).toContain('queue')
    const before = reports.length

    // The folder replaced as a whole (restored from elsewhere): the new one is watched.
    mkdirSync(join(dir.path, 'restored'))
    writeFileSync(join(dir.path, 'restored', 'plan.jsonl'), '{"t":"spec","spec":"old.md"}\n')
    renameSync(ralph(), join(dir.path, 'gone'))
    renameSync(join(dir.path, 'restored'), ralph())
    await expect.poll(() => reports.slice(before).flat()).toContain('queue')
    const after = reports.length
    writeFileSync(ralph('plan.jsonl'), '{"t":"spec","spec":"new.md"}\n')
    await expect.poll(() => reports.slice(after).flat()).toContain('queue')
  })

  it('reports a change while something else writes .ralph/ without a pause (a running loop)', async () => {
    mkdirSync(ralph(), { recursive: true })
    const { watch, reports } = start({ debounceMs: 50 })
    await watch.ready
    let n = 0
    const chatter = setInterval(() => writeFileSync(ralph('progress.log'), `line ${n++}\n`), 10)
    try {
      writeFileSync(ralph('plan.jsonl'), '{"t":"spec","spec":"a.md"}\n')
      await expect.poll(() => reports).toEqual([['queue']])
    } finally {
      clearInterval(chatter)
    }
  })

  it('does not report what it was told is the core’s own write', async () => {
    mkdirSync(ralph('notifications'), { recursive: true })
    const { watch, reports } = start()
    await watch.ready
    await watch.quietly(async () => writeFileSync(ralph('plan.jsonl'), '{"t":"spec","spec":"a.md"}\n'))
    writeFileSync(ralph('notifications', 'complete-1.md'), '# Done\n')
    await expect.poll(() => reports).toEqual([['notifications']])
  })

  it('polls instead when the system refuses to watch (no inotify slots left)', async () => {
    const refuse = (() => {
      throw Object.assign(new Error('ENOSPC: System limit for number of file watchers reached'), {
        code: 'ENOSPC',
      })
    }) as unknown as typeof fsWatch
    const fellBack: unknown[] = []
    const { watch, reports } = start({ watch: refuse, pollMs: 40, onFallback: (err) => fellBack.push(err) })
    await watch.ready
    expect(watch.mode).toBe('poll')
    expect(String(fellBack[0])).toMatch(/ENOSPC/)
    mkdirSync(ralph())
    writeFileSync(ralph('plan.jsonl'), '{"t":"spec","spec":"a.md"}\n')
    await expect.poll(() => reports).toEqual([['queue']])
  })

  it('reports nothing after close', async () => {
    mkdirSync(ralph(), { recursive: true })
    const closed = start()
    const witness = start()
    await Promise.all([closed.watch.ready, witness.watch.ready])
    closed.watch.close()
    expect(closed.watch.mode).toBe('closed')
    writeFileSync(ralph('plan.jsonl'), '{"t":"spec","spec":"a.md"}\n')
    // The witness, watching the same folder with the same delay, has seen the write: the closed one has not.
    await expect.poll(() => witness.reports).toEqual([['queue']])
    expect(closed.reports).toEqual([])
  })
})

describe('armSteps', () => {
  it('watches the project until .ralph/ exists, then .ralph/ and its notifications/', () => {
    expect(armSteps(new Map(), null, null)).toEqual({ stop: [], start: [{ key: 'root', ino: null }] })
    expect(armSteps(new Map([['root', null]]), 5, 7)).toEqual({
      stop: ['root'],
      start: [
        { key: 'ralph', ino: 5 },
        { key: 'notes', ino: 7 },
      ],
    })
  })

  it('watches a replaced folder again and leaves the others running', () => {
    expect(
      armSteps(
        new Map([
          ['ralph', 5],
          ['notes', 7],
        ]),
        5,
        8,
      ),
    ).toEqual({ stop: ['notes'], start: [{ key: 'notes', ino: 8 }] })
  })
})

describe('changedSince', () => {
  it('names the signatures that differ', () => {
    const known = { queue: 'a', notifications: 'b', plan: 'c' }
    expect([...changedSince(known, { ...known, plan: 'd' })]).toEqual(['plan'])
    expect(changedSince(known, known).size).toBe(0)
  })
})
