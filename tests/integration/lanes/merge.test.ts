// Merging lane results onto the integration state with real git (issue #38, seam 3): project files merge 3-way,
// the `.ralph/` state files by their rules (the lane's task state, the history's union, the larger counter, the
// integration's queue and config, plan.tsx without other tasks' markers), and the store's index, HEAD and refs
// are never touched. The lane results are built with git plumbing on a real snapshot, as a lane's commit is: a
// commit of the store whose parent is the lane's base.
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { makeTempDir } from '../../helpers/tempDir'
import { SnapshotEngine, ShadowGit, storePaths } from '../../../src/main/snapshots'
import { fingerprint, write } from '../../../src/main/snapshots/testkit'
import { memoryLogger } from '../../../src/main/workspace/logFile'
import { parsePlan } from '../../../src/main/plan'
import { mergeLaneResult, mergeOnto, nextAfterMerge, type LaneMerge } from '../../../src/main/lanes'

let tmp: { path: string; cleanup(): void }
let project: string
const log = memoryLogger()

let osTmp: string
const tmpBefore = process.env.TMPDIR

beforeEach(() => {
  tmp = makeTempDir('ralph-lane-merge-')
  project = join(tmp.path, 'project')
  mkdirSync(project)
  // The merge's temporary index and merge-file inputs go to the OS temp folder: this one, checked empty after.
  osTmp = join(tmp.path, 'os-tmp')
  mkdirSync(osTmp)
  process.env.TMPDIR = osTmp
})
afterEach(() => {
  if (tmpBefore === undefined) delete process.env.TMPDIR
  else process.env.TMPDIR = tmpBefore
  const left = readdirSync(osTmp)
  tmp.cleanup()
  expect(left).toEqual([])
})

const gitDir = (): string => storePaths(project).gitDir
const store = (): ShadowGit => new ShadowGit(gitDir(), project)
const git = (args: string[], opts: { input?: string; env?: Record<string, string> } = {}): string =>
  execFileSync(
    'git',
    ['-c', 'user.name=T', '-c', 'user.email=t@example.com', `--git-dir=${gitDir()}`, ...args],
    {
      encoding: 'utf8',
      input: opts.input,
      env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', ...opts.env },
    },
  ).trim()
const show = (tree: string, path: string): string => git(['cat-file', 'blob', `${tree}:${path}`]) + '\n'

/** A lane's result: the base's tree with these files set (null: deleted), committed with the base as parent. */
function laneResult(base: string, name: string, files: Record<string, string | null>): string {
  const env = { GIT_INDEX_FILE: join(tmp.path, `index-${name}`) }
  git(['read-tree', base], { env })
  for (const [path, text] of Object.entries(files)) {
    if (text === null) git(['update-index', '--force-remove', path], { env })
    else {
      const oid = git(['hash-object', '-w', '--stdin'], { input: text })
      git(['update-index', '--add', '--cacheinfo', `100644,${oid},${path}`], { env })
    }
  }
  return git(['commit-tree', git(['write-tree'], { env }), '-p', base, '-m', name])
}

/** The store's own state that a merge must leave alone: refs, HEAD, index, and its top-level files. */
function storeState(): unknown {
  const index = join(gitDir(), 'index')
  return {
    refs: git(['for-each-ref', '--format=%(refname) %(objectname)']),
    head: readFileSync(join(gitDir(), 'HEAD'), 'utf8'),
    index: existsSync(index) ? [readFileSync(index).toString('base64'), statSync(index).mtimeMs] : null,
    files: readdirSync(gitDir()).sort(),
  }
}

const lines = (n: string): string => Array.from({ length: 12 }, (_, i) => `${n} line ${i}`).join('\n') + '\n'

/** plan.tsx with a hero marker and the cards and links slots as given. */
const plan = (hero: string, cards = '<Slot name="cards" />', links = '<Slot name="links" />'): string =>
  [
    'export default (',
    '  <App name="shop">',
    '    <Screen name="home">',
    '      <Content>',
    `        <Section gumdrop="hero" files={['src/Hero.tsx']}>`,
    ...(hero ? [`          {/* ${hero} */}`] : []),
    '          <Slot name="headline" />',
    '        </Section>',
    `        <Section gumdrop="features" files={['src/F.tsx']}>`,
    `          ${cards}`,
    '        </Section>',
    `        <Section gumdrop="footer" files={['src/Footer.tsx']}>`,
    `          ${links}`,
    '        </Section>',
    '      </Content>',
    '    </Screen>',
    '  </App>',
    ')',
    '',
  ].join('\n')

const HISTORY = '- Task 0 (complete): the setup\n'
const QUEUE = '{"id":"q1","spec":"hero"}\n'
const CONFIG = '{"lanes":{"copy":[".env"]}}\n'

/** Every task state file a task writes, as task N leaves them. */
const stateOf = (task: number): Record<string, string> => ({
  '.ralph/task.md': `# Task ${task}\n`,
  '.ralph/status.txt': 'complete\n',
  '.ralph/summary.md': `did task ${task}\n`,
  '.ralph/feedback.md': `feedback of ${task}\n`,
  '.ralph/progress.md': `checkpoint of ${task}\n`,
  '.ralph/iteration.txt': `${task + 2}\n`,
  '.ralph/phase.txt': 'build\n',
  '.ralph/task-counter.txt': `${task}\n`,
})

async function baseSnapshot(): Promise<string> {
  write(project, 'a.txt', lines('a'))
  write(project, 'b.txt', lines('b'))
  for (const [p, text] of Object.entries(stateOf(1))) write(project, p, text)
  write(project, '.ralph/task-history.md', HISTORY)
  write(project, '.ralph/plan.jsonl', QUEUE)
  write(project, '.ralph/config.json', CONFIG)
  write(project, '.ralph/plan.tsx', plan('TASK-1 [ADD]: the hero'))
  write(project, '.ralph/origin.md', 'opened empty\n')
  expect(parsePlan(plan('TASK-1 [ADD]: the hero')).errors).toEqual([])
  const engine = new SnapshotEngine({ projectDir: project, logger: log })
  await engine.init()
  return (await engine.save({ kind: 'task-pre', task: 1 })).commit
}

/** Lane A (task 2) and lane B (task 3) from one base: different project files, all of their `.ralph/` state. */
function twoLanes(base: string): { a: string; b: string } {
  const history = `${HISTORY}- Task 1 (complete): the hero\n`
  const a = laneResult(base, 'task 2', {
    'a.txt': lines('a').replace('a line 3', 'A FROM TASK 2'),
    ...stateOf(2),
    '.ralph/task-history.md': history,
    '.ralph/plan.jsonl': `${QUEUE}{"id":"q9","spec":"written by the model"}\n`,
    '.ralph/plan.tsx': plan('TASK-2 [MODIFY]: a bigger headline', '<Slot name="cards" count={3} />'),
    '.ralph/attachments/a.png': 'png of 2',
  })
  const b = laneResult(base, 'task 3', {
    'b.txt': lines('b').replace('b line 9', 'B FROM TASK 3'),
    'new/c.txt': 'new file\n',
    ...stateOf(3),
    '.ralph/task-history.md': `${history}- Task 2 (running): noted by 3\n`,
    '.ralph/config.json': '{"lanes":{"copy":[]},"maxIterations":1}\n',
    '.ralph/plan.tsx': plan(
      'TASK-3 [ADD]: a subtitle',
      undefined,
      '<Slot name="links" /><Slot name="social" />',
    ),
    '.ralph/attachments/b.png': 'png of 3',
  })
  return { a, b }
}

const clean = (m: LaneMerge): Extract<LaneMerge, { kind: 'clean' }> => {
  expect(m).toMatchObject({ kind: 'clean' })
  return m as Extract<LaneMerge, { kind: 'clean' }>
}

describe('merging lane results', () => {
  it("merges two lanes' project files 3-way and their .ralph/ state by the rules, touching no ref, HEAD or index", async () => {
    const base = await baseSnapshot()
    const { a, b } = twoLanes(base)
    const before = storeState()
    const projectBefore = fingerprint(project)

    // Without the rules, every state file both tasks wrote would conflict.
    const plain = await mergeOnto(store(), laneResult(base, 'task 2 again', stateOf(2)), b)
    expect(plain.kind === 'conflict' && plain.conflicts.map((c) => c.path)).toEqual(
      expect.arrayContaining(['.ralph/summary.md', '.ralph/task.md', '.ralph/task-counter.txt']),
    )

    const first = clean(
      await mergeLaneResult(store(), { ours: base, theirs: a, task: 2, message: 'merge 2' }),
    )
    expect(first.notes).toEqual([expect.stringMatching(/^The task changed \.ralph\/plan\.jsonl.*dropped/)])
    expect(git(['rev-parse', `${first.commit}^{tree}`])).toBe(first.tree)
    expect(git(['rev-list', '--parents', '-n1', first.commit!]).split(' ')).toEqual([first.commit, base, a])
    expect(show(first.tree, '.ralph/plan.jsonl')).toBe(QUEUE)

    const m = clean(await mergeLaneResult(store(), { ours: first.commit!, theirs: b, task: 3 }))
    expect(m.commit).toBeUndefined()
    expect(m.notes).toEqual([expect.stringMatching(/^The task changed \.ralph\/config\.json.*dropped/)])
    // Project files: 3-way.
    expect(show(m.tree, 'a.txt')).toContain('A FROM TASK 2')
    expect(show(m.tree, 'b.txt')).toContain('B FROM TASK 3')
    expect(show(m.tree, 'new/c.txt')).toBe('new file\n')
    // Task state: the lane's.
    for (const [p, text] of Object.entries(stateOf(3))) expect(show(m.tree, p)).toBe(text)
    // History: ours' lines, then theirs' new ones, a line both have once.
    expect(show(m.tree, '.ralph/task-history.md')).toBe(
      `${HISTORY}- Task 1 (complete): the hero\n- Task 2 (running): noted by 3\n`,
    )
    // The queue and config: the integration's.
    expect(show(m.tree, '.ralph/plan.jsonl')).toBe(QUEUE)
    expect(show(m.tree, '.ralph/config.json')).toBe(CONFIG)
    // plan.tsx: the other tasks' markers gone, both lanes' plan changes kept, this task's marker kept.
    expect(show(m.tree, '.ralph/plan.tsx')).toBe(
      plan(
        'TASK-3 [ADD]: a subtitle',
        '<Slot name="cards" count={3} />',
        '<Slot name="links" /><Slot name="social" />',
      ),
    )
    // Attachments and any other .ralph/ file: 3-way.
    expect(show(m.tree, '.ralph/attachments/a.png')).toBe('png of 2\n')
    expect(show(m.tree, '.ralph/attachments/b.png')).toBe('png of 3\n')
    expect(show(m.tree, '.ralph/origin.md')).toBe('opened empty\n')
    expect(nextAfterMerge({ attempt: 1, outcome: m })).toEqual({ do: 'verify-merged', tree: m.tree })

    // The other order: the counter stays the larger, the task state is the lane merged last.
    const ba = await mergeLaneResult(store(), { ours: b, theirs: a, task: 2 }) // b's parent is base too
    const reversed = clean(ba)
    expect(show(reversed.tree, '.ralph/task-counter.txt')).toBe('3\n')
    for (const p of ['.ralph/task.md', '.ralph/status.txt', '.ralph/iteration.txt'])
      expect(show(reversed.tree, p)).toBe(stateOf(2)[p])
    expect(show(reversed.tree, '.ralph/plan.tsx')).toBe(
      plan(
        'TASK-2 [MODIFY]: a bigger headline',
        '<Slot name="cards" count={3} />',
        '<Slot name="links" /><Slot name="social" />',
      ),
    )

    // An integration state without history (a snapshot commit): the lane's base must be given, and is used.
    const snapshotLike = git(['commit-tree', first.tree, '-m', 'a snapshot has no parent'])
    await expect(mergeLaneResult(store(), { ours: snapshotLike, theirs: b, task: 3 })).rejects.toThrow(
      /no common base/,
    )
    const given = clean(await mergeLaneResult(store(), { ours: snapshotLike, theirs: b, task: 3, base }))
    expect(given.tree).toBe(m.tree)
    // A lane's post snapshot has no parent either (runInLane fetches it as refs/lanes/<task>/post).
    const postLike = git(['commit-tree', `${b}^{tree}`, '-m', 'task-3-post'])
    const both = clean(
      await mergeLaneResult(store(), { ours: snapshotLike, theirs: postLike, task: 3, base }),
    )
    expect(both.tree).toBe(m.tree)

    expect(storeState()).toEqual(before)
    expect(fingerprint(project)).toEqual(projectBefore)
  })

  it('reports the same lines of a project file and a both-added attachment as conflicts, never the state files', async () => {
    const base = await baseSnapshot()
    const { a } = twoLanes(base)
    const onto = clean(await mergeLaneResult(store(), { ours: base, theirs: a, task: 2, message: 'merge 2' }))
    const d = laneResult(base, 'task 4', {
      'a.txt': lines('a').replace('a line 3', 'A FROM TASK 4'),
      ...stateOf(4),
      '.ralph/task-history.md': `${HISTORY}- Task 3 (failed): other\n`,
      '.ralph/attachments/a.png': 'png of 4',
    })
    const before = storeState()
    const m = await mergeLaneResult(store(), { ours: onto.commit!, theirs: d, task: 4 })
    expect(m).toEqual({
      kind: 'conflict',
      conflicts: [
        { path: '.ralph/attachments/a.png', kinds: ['CONFLICT (contents)'] },
        { path: 'a.txt', kinds: ['CONFLICT (contents)'] },
      ],
      notes: [],
    })
    expect(storeState()).toEqual(before)
  })

  it("merges markers of two tasks in one plan section, and reports plan.tsx when the plan's own text conflicts", async () => {
    const base = await baseSnapshot()
    const { a } = twoLanes(base)
    const onto = clean(await mergeLaneResult(store(), { ours: base, theirs: a, task: 2, message: 'merge 2' }))
    // Both add a marker in the hero section (the same place) and both change the cards slot.
    const c = laneResult(base, 'task 5', {
      ...stateOf(5),
      '.ralph/plan.tsx': plan('TASK-5 [ADD]: a badge', '<Slot name="cards" count={5} />'),
    })
    const m = await mergeLaneResult(store(), { ours: onto.commit!, theirs: c, task: 5 })
    expect(m).toEqual({
      kind: 'conflict',
      conflicts: [{ path: '.ralph/plan.tsx', kinds: ['CONFLICT (contents)'] }],
      notes: [],
    })
    const next = nextAfterMerge({ attempt: 1, outcome: m })
    expect(next.do === 'rerun' && next.feedback).toMatch(/markers of other tasks were set aside/)

    // Only markers in the same place: task 2's is stale for task 6, so task 6's marker merges in.
    const e = laneResult(base, 'task 6', {
      ...stateOf(6),
      '.ralph/plan.tsx': plan('TASK-6 [ADD]: a badge'),
    })
    const merged = clean(await mergeLaneResult(store(), { ours: onto.commit!, theirs: e, task: 6 }))
    expect(show(merged.tree, '.ralph/plan.tsx')).toBe(
      plan('TASK-6 [ADD]: a badge', '<Slot name="cards" count={3} />'),
    )
  })

  it('refuses what is not a commit id or a task number', async () => {
    const base = await baseSnapshot()
    await expect(mergeLaneResult(store(), { ours: 'HEAD', theirs: base, task: 2 })).rejects.toThrow(
      /not a commit id/,
    )
    await expect(mergeLaneResult(store(), { ours: base, theirs: base, task: 0 })).rejects.toThrow(
      /not a task number/,
    )
  })
})
