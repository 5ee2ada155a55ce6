import { execFileSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { makeTempDir } from '../../../tests/helpers/tempDir'
import { countLineChanges } from './lineChanges'

/** git's own count of the same change: `git diff --no-index --numstat`. */
function gitNumstat(dir: string, before: string, after: string): { additions: number; deletions: number } {
  writeFileSync(join(dir, 'a'), before)
  writeFileSync(join(dir, 'b'), after)
  let out = ''
  try {
    execFileSync('git', ['diff', '--no-index', '--numstat', '--diff-algorithm=myers', 'a', 'b'], { cwd: dir })
  } catch (err) {
    out = String((err as { stdout: Buffer }).stdout)
  }
  const [add = '0', del = '0'] = out.trim().split(/\s+/)
  return { additions: Number(add), deletions: Number(del) }
}

describe('countLineChanges', () => {
  const dirs: { cleanup(): void }[] = []
  afterEach(() => dirs.splice(0).forEach((d) => d.cleanup()))

  it('counts what git counts for edits, inserts, deletes and moves', () => {
    const dir = makeTempDir('ralph-lines-')
    dirs.push(dir)
    // A seeded generator, so a failure can be replayed.
    let seed = 7
    const rand = (n: number) => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n
    for (let round = 0; round < 40; round++) {
      const before = Array.from({ length: 5 + rand(40) }, () => `line ${rand(12)}`)
      const after = [...before]
      for (let edits = rand(8); edits > 0; edits--) {
        const at = rand(after.length + 1)
        if (rand(3) === 0) after.splice(at, 1)
        else if (rand(2)) after.splice(at, 0, `new ${rand(12)}`)
        else after[Math.min(at, after.length - 1)] = `changed ${rand(12)}`
      }
      const a = before.join('\n') + '\n'
      const b = after.join('\n') + '\n'
      expect(countLineChanges(a, b), `round ${round}`).toEqual(gitNumstat(dir.path, a, b))
    }
  })

  it('counts a new file, a deleted one and an empty one', () => {
    expect(countLineChanges(null, 'a\nb\n')).toEqual({ additions: 2, deletions: 0 })
    expect(countLineChanges('a\nb\nc', null)).toEqual({ additions: 0, deletions: 3 })
    expect(countLineChanges('', '')).toEqual({ additions: 0, deletions: 0 })
  })

  it('counts a rewrite too large for an exact diff as the lines each side lacks', () => {
    const before = Array.from({ length: 12_000 }, (_, i) => `old ${i}`).join('\n')
    const after = Array.from({ length: 12_000 }, (_, i) => (i % 2 ? `old ${i}` : `new ${i}`)).join('\n')
    expect(countLineChanges(before, after)).toEqual({ additions: 6000, deletions: 6000 })
  })
})
