import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { useTempDir } from '../workspace/testkit'
import { walkProjectFiles } from './walk'

const dir = useTempDir('ralph-walk-')

describe('walkProjectFiles', () => {
  it('visits a folder’s files (sorted), then its folders, skipping what snapshots skip', async () => {
    mkdirSync(join(dir.path, 'src/b'), { recursive: true })
    mkdirSync(join(dir.path, 'node_modules/x'), { recursive: true })
    mkdirSync(join(dir.path, '.git'))
    // An app data folder (it holds Ralph's database) and all below it; the project root's own database is a file.
    mkdirSync(join(dir.path, 'home/sub'), { recursive: true })
    const files = ['z.txt', 'a.txt', 'src/b/c.ts', 'src/a.ts', 'node_modules/x/i.js', '.git/HEAD', 'ralph.db']
    for (const f of [...files, 'home/ralph.db', 'home/a.log', 'home/sub/keys.json'])
      writeFileSync(join(dir.path, f), f)
    // A folder named like the database is no database.
    mkdirSync(join(dir.path, 'src/b/ralph.db'))
    writeFileSync(join(dir.path, 'src/b/ralph.db/x.txt'), 'x')
    const seen: string[] = []
    await walkProjectFiles(dir.path, (rel) => void seen.push(rel))
    expect(seen).toEqual(['a.txt', 'ralph.db', 'z.txt', 'src/a.ts', 'src/b/c.ts', 'src/b/ralph.db/x.txt'])
  })

  it('lets other work run during a long walk instead of blocking the event loop throughout', async () => {
    for (let i = 0; i < 600; i++) writeFileSync(join(dir.path, `f${String(i).padStart(3, '0')}`), '')
    let otherWorkRanAt = -1
    let visited = 0
    setImmediate(() => (otherWorkRanAt = visited))
    // Each visit takes 0.1 ms of CPU, so the walk as a whole outlasts its 8 ms slice on any machine.
    await walkProjectFiles(dir.path, () => {
      visited++
      const until = performance.now() + 0.1
      while (performance.now() < until);
    })
    expect(visited).toBe(600)
    expect(otherWorkRanAt).toBeGreaterThan(0)
    expect(otherWorkRanAt).toBeLessThan(600)
  })

  it('stops when the visitor says so', async () => {
    for (const f of ['a', 'b', 'c']) writeFileSync(join(dir.path, f), '')
    const seen: string[] = []
    await walkProjectFiles(dir.path, (rel) => {
      seen.push(rel)
      return rel !== 'b'
    })
    expect(seen).toEqual(['a', 'b'])
  })
})
