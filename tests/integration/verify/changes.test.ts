// What verification reads of a task's work: the diff between its real snapshots, with hunks and line counts.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { SnapshotEngine } from '../../../src/main/snapshots'
import { collectChanges } from '../../../src/main/verify/changes'
import { makeTempDir } from '../../helpers/tempDir'
import { memoryLogger } from '../../../src/main/workspace/logFile'

let project: ReturnType<typeof makeTempDir>
beforeEach(() => {
  project = makeTempDir('ralph-verify-changes-')
})
afterEach(() => project.cleanup())

function write(rel: string, content: string | Buffer): void {
  mkdirSync(dirname(join(project.path, rel)), { recursive: true })
  writeFileSync(join(project.path, rel), content)
}

describe('collectChanges', () => {
  it('lists added, modified, deleted, renamed and binary files between two snapshots, without .ralph/', async () => {
    const engine = new SnapshotEngine({ projectDir: project.path, logger: memoryLogger() })
    await engine.init()
    const long = Array.from({ length: 40 }, (_, i) => `line ${i} of a file that will move`).join('\n') + '\n'
    write('src/keep.ts', 'export const a = 1\nexport const b = 2\n')
    write('src/gone.ts', 'export const gone = true\n')
    write('src/old name.ts', long)
    write('logo.png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 3]))
    await engine.save({ kind: 'task-pre', task: 1 })
    write('src/keep.ts', 'export const a = 1\nexport const b = 3\n')
    rmSync(join(project.path, 'src/gone.ts'))
    rmSync(join(project.path, 'src/old name.ts'))
    write('src/new name.ts', long.replace('line 3 ', 'line three '))
    write('src/fresh.ts', 'export const fresh = 1\n')
    write('logo.png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 9, 9, 9]))
    write('.ralph/summary.md', 'done\n')
    await engine.save({ kind: 'task-post', task: 1 })

    const files = await collectChanges(engine, 'task-1-pre', 'task-1-post')
    const byPath = Object.fromEntries(files.map((f) => [f.path, f]))
    expect(Object.keys(byPath).sort()).toEqual([
      'logo.png',
      'src/fresh.ts',
      'src/gone.ts',
      'src/keep.ts',
      'src/new name.ts',
    ])
    expect(byPath['src/keep.ts']).toMatchObject({
      status: 'modified',
      additions: 1,
      deletions: 1,
      opaque: false,
    })
    expect(byPath['src/keep.ts']!.hunks[0]!.lines).toEqual([
      ' export const a = 1',
      '-export const b = 2',
      '+export const b = 3',
    ])
    expect(byPath['src/keep.ts']!.added).toEqual([{ line: 2, text: 'export const b = 3' }])
    expect(byPath['src/gone.ts']).toMatchObject({ status: 'deleted', additions: 0, deletions: 1 })
    expect(byPath['src/fresh.ts']).toMatchObject({ status: 'added', additions: 1, deletions: 0 })
    expect(byPath['src/new name.ts']).toMatchObject({
      status: 'renamed',
      oldPath: 'src/old name.ts',
      additions: 1,
      deletions: 1,
    })
    expect(byPath['logo.png']).toMatchObject({ opaque: true, hunks: [] })
  })
})
