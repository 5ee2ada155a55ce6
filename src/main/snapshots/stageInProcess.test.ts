import { execFileSync } from 'node:child_process'
import { chmodSync, readdirSync, renameSync, rmSync, symlinkSync, unlinkSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { memoryLogger } from '../workspace/logFile'
import { ShadowGit } from './git'
import { SnapshotEngine } from './engine'
import { DEFAULT_SIZE_CAP } from './exclusions'
import { stageWorkingTree } from './stage'
import { removeDir, tempProject, write } from './testkit'
import { inProcessWriter } from './writerPaths'

let dir: string
let gitDir: string
let scratchIndex: string
beforeEach(() => {
  dir = tempProject('ralph-inproc-')
  gitDir = join(dir, '.ralph/snapshots.git')
  scratchIndex = join(tempProject('ralph-inproc-index-'), 'index')
})
afterEach(() => {
  removeDir(dir)
  removeDir(join(scratchIndex, '..'))
})

function git(args: string[], env: Record<string, string> = {}): string {
  return execFileSync('git', [`--git-dir=${gitDir}`, `--work-tree=${dir}`, ...args], {
    cwd: dir,
    encoding: 'utf8',
    env: { PATH: process.env.PATH, HOME: dir, GIT_CONFIG_NOSYSTEM: '1', ...env },
  }).trim()
}

/** The tree git's own `add -A && write-tree` makes of the work tree, in a scratch index (the store's is untouched). */
function gitsTree(exclude: string[] = []): string {
  rmSync(scratchIndex, { force: true })
  const env = { GIT_INDEX_FILE: scratchIndex }
  git(['add', '-A', '--', '.', ...exclude.map((p) => `:(exclude)${p}`)], env)
  return git(['write-tree'], env)
}

/** Stages as a save does, asserts it happened in-process, and returns the tree written. */
async function stageInProcessTree(): Promise<string> {
  const shadow = new ShadowGit(gitDir, dir)
  const result = await stageWorkingTree(shadow, dir, DEFAULT_SIZE_CAP, { log: memoryLogger() })
  expect(result.staged, 'staged in-process').toBeDefined()
  // The index must say the same as the tree: git finds nothing to stage and writes that very tree.
  expect(git(['diff', '--name-only'], { GIT_OPTIONAL_LOCKS: '0' })).toBe('')
  expect(git(['write-tree'])).toBe(result.staged!.tree)
  return result.staged!.tree
}

async function baseline(files: Record<string, string>): Promise<void> {
  for (const [path, content] of Object.entries(files)) write(dir, path, content)
  await new SnapshotEngine({ projectDir: dir, logger: memoryLogger() }).save({ kind: 'manual' })
}

const BASE = {
  'a.txt': 'a\n',
  'b.txt': 'b\n',
  'src/one.ts': 'one\n',
  'src/two.ts': 'two\n',
  'src/deep/three.ts': 'three\n',
  'src/deep/er/four.ts': 'four\n',
  'docs/readme.md': 'docs\n',
  'a-b/x': 'x\n',
  'a.b/y': 'y\n',
}

describe('in-process staging makes the trees git makes', () => {
  const steps: [string, () => void][] = [
    ['modifies', () => (write(dir, 'a.txt', 'A!\n'), write(dir, 'src/deep/er/four.ts', 'FOUR\n'))],
    [
      'adds in old, new and nested new folders',
      () => {
        write(dir, 'c.txt', 'c\n')
        write(dir, 'src/deep/five.ts', 'five\n')
        write(dir, 'new/a/b/c/leaf.txt', 'leaf\n')
        write(dir, 'a/z', 'sorts between a.b and a0\n')
      },
    ],
    [
      'deletes files and a whole folder',
      () => {
        unlinkSync(join(dir, 'b.txt'))
        rmSync(join(dir, 'src/deep'), { recursive: true })
      },
    ],
    [
      'changes modes only',
      () => {
        chmodSync(join(dir, 'src/one.ts'), 0o755)
        chmodSync(join(dir, 'a.txt'), 0o700)
      },
    ],
    ['makes the executable plain again', () => chmodSync(join(dir, 'src/one.ts'), 0o644)],
    [
      'adds and retargets symlinks, file <-> symlink',
      () => {
        symlinkSync('a.txt', join(dir, 'link'))
        unlinkSync(join(dir, 'src/two.ts'))
        symlinkSync('../a.txt', join(dir, 'src/two.ts'))
      },
    ],
    [
      'retargets a link and turns a link into a file',
      () => {
        unlinkSync(join(dir, 'link'))
        symlinkSync('docs/readme.md', join(dir, 'link'))
        unlinkSync(join(dir, 'src/two.ts'))
        write(dir, 'src/two.ts', 'two again\n')
      },
    ],
    [
      'renames a file and a folder',
      () => {
        renameSync(join(dir, 'c.txt'), join(dir, 'c-renamed.txt'))
        renameSync(join(dir, 'docs'), join(dir, 'documentation'))
      },
    ],
    [
      'replaces a file with a folder',
      () => {
        unlinkSync(join(dir, 'a-b/x'))
        write(dir, 'a-b/x/inside.txt', 'inside\n')
      },
    ],
    [
      'replaces a folder with a file',
      () => {
        rmSync(join(dir, 'new'), { recursive: true })
        write(dir, 'new', 'now a file\n')
      },
    ],
    ['edits .ralph state', () => write(dir, '.ralph/status.txt', 'busy\n')],
    ['removes the last file of a folder', () => unlinkSync(join(dir, 'a.b/y'))],
  ]

  it('after each of a series of changes, tree for tree', async () => {
    await baseline(BASE)
    for (const [what, change] of steps) {
      change()
      const ours = await stageInProcessTree()
      const theirs = gitsTree()
      if (ours !== theirs) {
        console.log(what, git(['ls-tree', '-r', ours]), '\n---\n', git(['ls-tree', '-r', theirs]))
      }
      expect(ours, what).toBe(theirs)
    }
    expect(git(['fsck', '--no-dangling'])).toBe('')
  })

  it('the git path (its fallback, and what large indexes use) stages the same trees', async () => {
    await baseline(BASE)
    inProcessWriter.stage = false
    try {
      for (const [what, change] of steps) {
        change()
        const shadow = new ShadowGit(gitDir, dir)
        const result = await stageWorkingTree(shadow, dir, DEFAULT_SIZE_CAP, { log: memoryLogger() })
        expect(result.staged, what).toBeUndefined()
        expect(git(['write-tree']), what).toBe(gitsTree())
      }
    } finally {
      inProcessWriter.stage = true
    }
  })

  it('records same-size edits made in the second the index was written (racy git)', async () => {
    await baseline(BASE)
    for (let round = 0; round < 6; round++) {
      // Same size each time: only the content (and maybe not the stat data) tells them apart.
      write(dir, 'a.txt', `v${round}\n`)
      expect(await stageInProcessTree()).toBe(gitsTree())
      expect(git(['cat-file', '-p', ':a.txt'])).toBe(`v${round}`)
    }
  })

  it('drops the files of a folder that became a nested repository, and reports it', async () => {
    await baseline({ ...BASE, 'sub/kept.txt': 'kept\n' })
    execFileSync('git', ['init', '-q', join(dir, 'sub')], { env: { PATH: process.env.PATH, HOME: dir } })
    write(dir, 'sub/kept.txt', 'changed in the nested repo\n') // what makes status name the folder
    const shadow = new ShadowGit(gitDir, dir)
    const result = await stageWorkingTree(shadow, dir, DEFAULT_SIZE_CAP, { log: memoryLogger() })
    expect(result.staged).toBeDefined()
    expect(result.skipped).toContainEqual({ path: 'sub', reason: 'nested-repo' })
    expect(git(['ls-files', 'sub'])).toBe('')
    expect(result.staged!.tree).toBe(gitsTree(['sub']))
  })

  it('writes a few objects loose and many as one pack, which git reads and verifies', async () => {
    await baseline(BASE)
    const packs = () => readdirSync(join(gitDir, 'objects/pack')).filter((n) => n.endsWith('.idx'))
    const before = packs().length
    write(dir, 'a.txt', 'changed\n')
    await stageInProcessTree()
    expect(packs().length).toBe(before)
    for (let i = 0; i < 120; i++) write(dir, `many/f${i}.txt`, `file ${i}\n`)
    write(dir, 'big.bin', Buffer.alloc(100_000, 7)) // compressed, unlike the small objects
    expect(await stageInProcessTree()).toBe(gitsTree())
    expect(packs().length).toBe(before + 1)
    for (const idx of packs()) git(['verify-pack', join(gitDir, 'objects/pack', idx)])
    expect(git(['cat-file', '-p', ':a.txt'])).toBe('changed')
  })

  it('stages nothing and keeps the index when nothing changed', async () => {
    await baseline(BASE)
    const tree = await stageInProcessTree()
    expect(await stageInProcessTree()).toBe(tree)
  })

  it('saves through the engine with the same counts git reports', async () => {
    await baseline(BASE)
    const engine = new SnapshotEngine({ projectDir: dir, logger: memoryLogger() })
    write(dir, 'a.txt', 'A\n')
    write(dir, 'added.txt', 'new\n')
    unlinkSync(join(dir, 'b.txt'))
    const saved = await engine.save({ kind: 'manual' })
    expect(saved).toMatchObject({ added: 1, modified: 1, deleted: 1 })
    expect(git(['rev-parse', `${saved.commit}^{tree}`])).toBe(gitsTree())
    // Written in-process, the commit is the very one git's commit-tree makes of the same input.
    const raw = execFileSync('git', [`--git-dir=${gitDir}`, 'cat-file', 'commit', saved.commit])
    const text = raw.toString('utf8')
    const message = text.slice(text.indexOf('\n\n') + 2)
    const seconds = /^committer .* (\d+) \+0000$/m.exec(text)![1]
    const date = `@${seconds} +0000`
    const viaGit = execFileSync(
      'git',
      [
        ...['-c', 'user.name=Ralph Studio', '-c', 'user.email=snapshots@ralph.local'],
        ...[`--git-dir=${gitDir}`, 'commit-tree', git(['rev-parse', `${saved.commit}^{tree}`])],
      ],
      {
        input: message,
        encoding: 'utf8',
        env: {
          PATH: process.env.PATH,
          HOME: dir,
          GIT_CONFIG_NOSYSTEM: '1',
          GIT_AUTHOR_DATE: date,
          GIT_COMMITTER_DATE: date,
        },
      },
    )
    expect(viaGit.trim()).toBe(saved.commit)
  })
})
