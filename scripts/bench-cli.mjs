// bench:cli — whole-process start-up of the built `ralph` CLI against bare `node -e 0`, and `ralph snapshot save`
// of 100 changed files in a 10,000-file project against plain git's `add -A && commit && tag` on an identical copy.
// Each pair runs alternately (A B A B …) so both meet the same machine; figures are medians of ROUNDS runs, process
// start included, never subtracted. Prints a table and writes bench-results/cli-<time>.json.
import { spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { ensureNodeBuilt } from './node-build.mjs'

const root = fileURLToPath(new URL('..', import.meta.url))
const ralph = join(root, 'bin', 'ralph.js')
const ROUNDS = Math.max(7, Number(process.env.BENCH_ROUNDS ?? 9))
/** BENCH_ONLY=save runs only the save row (profiling the snapshot path without the start-up rows). */
const ONLY = process.env.BENCH_ONLY
const FILES = 10_000
const CHANGED = 100

const targets = {
  '--help': 2,
  'snapshot status': 3,
  'snapshot list': 3,
  'config get': 3,
  // Retired by #25: a cold save is mostly the CLI's start-up; the engine's paths are measured inside one warm
  // process instead (scripts/bench-snapshot-paths.ts). The row stays, as a figure to watch.
  'snapshot save': null,
}

function timeRun(cmd, args, options) {
  const started = process.hrtime.bigint()
  const r = spawnSync(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], ...options })
  const ms = Number(process.hrtime.bigint() - started) / 1e6
  if (r.status !== 0) {
    throw new Error(`${cmd} ${args.join(' ')} exited ${r.status}: ${r.stderr?.toString().slice(0, 500)}`)
  }
  return ms
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2
}

/** Runs a and b alternately; before(i) prepares round i for both (untimed). */
function paired(a, b, before = () => {}) {
  const as = []
  const bs = []
  before(-1)
  a()
  b() // one untimed warm-up each: the page cache, not the first-run cost, is what users meet after the first call
  for (let i = 0; i < ROUNDS; i++) {
    before(i)
    if (i % 2 === 0) {
      as.push(a())
      bs.push(b())
    } else {
      bs.push(b())
      as.push(a())
    }
  }
  return { a: median(as), b: median(bs), ratio: median(as.map((x, i) => x / bs[i])) }
}

function makeProject(dir) {
  for (let i = 0; i < FILES; i++) {
    const sub = join(dir, 'src', `d${Math.floor(i / 100)}`)
    if (i % 100 === 0) mkdirSync(sub, { recursive: true })
    writeFileSync(join(sub, `f${i}.ts`), `export const v${i} = ${i}\n`)
  }
}

function changeFiles(dir, round) {
  for (let i = 0; i < CHANGED; i++) {
    const n = (i * 97 + round * 13) % FILES
    writeFileSync(
      join(dir, 'src', `d${Math.floor(n / 100)}`, `f${n}.ts`),
      `export const v${n} = ${round}-${i}\n`,
    )
  }
}

await ensureNodeBuilt({ who: 'bench:cli' })
const work = mkdtempSync(join(tmpdir(), 'ralph-bench-cli-'))
const home = join(work, 'home')
mkdirSync(home)
const env = {
  ...process.env,
  RALPH_HOME: home,
  RALPH_PROVIDER: 'openai-compatible',
  RALPH_MODEL: 'bench',
  RALPH_BASE_URL: 'http://127.0.0.1:9/v1',
}
const gitEnv = {
  ...process.env,
  GIT_AUTHOR_NAME: 'bench',
  GIT_AUTHOR_EMAIL: 'bench@example.invalid',
  GIT_COMMITTER_NAME: 'bench',
  GIT_COMMITTER_EMAIL: 'bench@example.invalid',
}
const rows = []
try {
  const ralphDir = join(work, 'ralph-project')
  const gitDir = join(work, 'git-project')
  for (const dir of [ralphDir, gitDir]) {
    mkdirSync(dir)
    makeProject(dir)
  }
  timeRun(process.execPath, [ralph, 'init', '--project', ralphDir], { env })
  timeRun(process.execPath, [ralph, 'snapshot', 'save', 'baseline', '--project', ralphDir], { env })
  timeRun('git', ['init', '-q'], { cwd: gitDir, env: gitEnv })
  timeRun('sh', ['-c', 'git add -A && git commit -q -m baseline && git tag t0'], { cwd: gitDir, env: gitEnv })

  const node = () => timeRun(process.execPath, ['-e', '0'])
  for (const command of ONLY === 'save' ? [] : ['--help', 'snapshot status', 'snapshot list', 'config get']) {
    const args = command.split(' ')
    const r = paired(() => timeRun(process.execPath, [ralph, ...args], { env, cwd: ralphDir }), node)
    rows.push({ command: `ralph ${command}`, against: 'node -e 0', ...r, target: targets[command] })
  }

  let tag = 0
  const save = paired(
    () =>
      timeRun(process.execPath, [ralph, 'snapshot', 'save', `round ${tag}`, '--project', ralphDir], { env }),
    () =>
      timeRun('sh', ['-c', `git add -A && git commit -q -m r${++tag} && git tag t${tag}`], {
        cwd: gitDir,
        env: gitEnv,
      }),
    (i) => {
      changeFiles(ralphDir, i + 1)
      changeFiles(gitDir, i + 1)
    },
  )
  rows.push({
    command: `ralph snapshot save (${CHANGED} of ${FILES} files changed)`,
    against: 'git add -A && git commit && git tag',
    ...save,
    target: targets['snapshot save'],
  })
} finally {
  rmSync(work, { recursive: true, force: true })
}

console.log(`bench:cli — medians of ${ROUNDS} paired runs, whole process, ${new Date().toISOString()}`)
console.log(
  'command'.padEnd(52),
  'ralph ms'.padStart(9),
  'base ms'.padStart(9),
  'ratio'.padStart(7),
  ' target  baseline',
)
for (const r of rows) {
  const verdict = r.target === null ? 'none' : `≤ ${r.target}× ${r.ratio <= r.target ? 'ok' : 'MISSED'}`
  console.log(
    r.command.padEnd(52),
    r.a.toFixed(0).padStart(9),
    r.b.toFixed(0).padStart(9),
    `${r.ratio.toFixed(2)}×`.padStart(7),
    ` ${verdict.padEnd(13)} ${r.against}`,
  )
}
mkdirSync(join(root, 'bench-results'), { recursive: true })
const file = join(root, 'bench-results', `cli-${Date.now()}.json`)
writeFileSync(file, JSON.stringify({ rounds: ROUNDS, rows, at: new Date().toISOString() }, null, 2))
console.log(`written ${file}`)
