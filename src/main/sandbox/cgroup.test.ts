import { spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, rmdirSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { createPidsCgroup, sweepLeftoverCgroups } from './cgroup'

const log = { warn: () => {}, error: () => {} }

describe('command cgroups', () => {
  it('removes the cgroups of Ralph processes that are gone, and keeps those of a live one', async (ctx) => {
    const own = await createPidsCgroup(10, log)
    // Where the machine lets no app make a cgroup (most desktops), there is nothing to sweep.
    if (!own) return ctx.skip()
    const base = dirname(dirname(own.procsFile))
    await own.remove()
    const dead = spawnSync('true').pid!
    const live = spawn('sleep', ['30'])
    const gone = join(base, `ralph-command-${dead}-1`)
    const kept = join(base, `ralph-command-${live.pid}-1`)
    const other = join(base, `not-ralph-${dead}`)
    for (const d of [gone, kept, other]) mkdirSync(d)
    try {
      await sweepLeftoverCgroups(base, log)
      expect(existsSync(gone)).toBe(false)
      expect(existsSync(kept)).toBe(true)
      expect(existsSync(other)).toBe(true)
    } finally {
      live.kill()
      for (const d of [gone, kept, other]) if (existsSync(d)) rmdirSync(d)
    }
  })
})
