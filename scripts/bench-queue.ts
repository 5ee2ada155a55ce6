// `npm run bench:queue`: the work queue and verification (DESIGN.md §16).
// - `ralph query stage` on a 2,000-record queue, the built CLI as a whole process, paired with bare `node -e 0`;
// - a mutation (`ralph task add`: write + history commit) on that queue, whole process and in-process;
// - `ralph log --all` over a history of 1,000 mutations;
// - the harness's own time to verify 5 LLM criteria against an instant fake model (real snapshots, real HTTP to
//   the fake server: everything but the model's thinking).
// Pairs run alternately (A B A B …) so both meet the same machine; figures are medians of ROUNDS runs. Prints a
// table and writes bench-results/queue-<time>.json.
import { memoryLogger } from '../src/main/workspace/logFile'
import { spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { cpus, loadavg, tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import * as queue from '../src/main/queue'
import { SnapshotEngine } from '../src/main/snapshots'
import { verifyTask } from '../src/main/verify'
import { startInstantModel } from '../tests/integration/verify/instantModel'
import { ensureNodeBuilt } from './node-build.mjs'

/** The queue's changes in this bench: failures they survive are kept in memory. */
const options = { logger: memoryLogger() }

const root = fileURLToPath(new URL('..', import.meta.url))
const ralph = join(root, 'bin', 'ralph.js')
const ROUNDS = Math.max(7, Number(process.env.BENCH_ROUNDS ?? 9))
const RECORDS = 2000
const MUTATIONS = 1000
const CRITERIA = 5
/** BENCH_ONLY=query|log|verify runs one part (profiling). */
const ONLY = process.env.BENCH_ONLY
const runs = (part: string) => ONLY === undefined || ONLY === part

interface Row {
  what: string
  ms: number
  baseline: string | null
  baselineMs: number | null
  target: string
  ok: boolean
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2
}

function timeRun(
  cmd: string,
  args: string[],
  options: { env?: NodeJS.ProcessEnv; cwd?: string } = {},
): number {
  const started = process.hrtime.bigint()
  const r = spawnSync(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], ...options })
  const ms = Number(process.hrtime.bigint() - started) / 1e6
  if (r.status !== 0) {
    throw new Error(`${cmd} ${args.join(' ')} exited ${r.status}: ${r.stderr?.toString().slice(0, 500)}`)
  }
  return ms
}

/** a and b alternately after one untimed warm-up each; medians and the median of the per-round ratios. */
function paired(a: () => number, b: () => number) {
  const as: number[] = []
  const bs: number[] = []
  a()
  b()
  for (let i = 0; i < ROUNDS; i++) {
    if (i % 2 === 0) {
      as.push(a())
      bs.push(b())
    } else {
      bs.push(b())
      as.push(a())
    }
  }
  return { a: median(as), b: median(bs), ratio: median(as.map((x, i) => x / bs[i]!)) }
}

function write(dir: string, rel: string, content: string): void {
  mkdirSync(dirname(join(dir, rel)), { recursive: true })
  writeFileSync(join(dir, rel), content)
}

/** 1 spec line, 1,799 tasks (a third with a dependency, a tenth done) and 200 issues. */
function queueOf(records: number): string {
  const lines = [JSON.stringify({ t: 'spec', spec: 'spec.md' })]
  const issues = 200
  const tasks = records - 1 - issues
  const id = (i: number) => `t-${i.toString(36).padStart(4, '0')}`
  for (let i = 0; i < tasks; i++) {
    const rec: Record<string, unknown> = {
      t: 'task',
      id: id(i),
      spec: 'spec.md',
      name: `Task number ${i}`,
      notes: `Notes for task ${i}`,
      accept: [`DET: \`npm test\` passes`, `LLM: task ${i} does what it says`],
      s: i % 10 === 0 ? 'd' : 'p',
      ...(i % 10 === 0 ? { done_at: 'abc123' } : {}),
    }
    if (i % 3 === 0 && i > 0) rec.deps = [id(Math.floor(i / 2))]
    lines.push(JSON.stringify(rec))
  }
  for (let i = 0; i < issues; i++) {
    lines.push(
      JSON.stringify({
        t: 'issue',
        id: `i-${i.toString(36).padStart(4, '0')}`,
        spec: 'spec.md',
        desc: `Issue ${i}`,
      }),
    )
  }
  return `${lines.join('\n')}\n`
}

async function main(): Promise<void> {
  await ensureNodeBuilt({ who: 'bench:queue' })
  const work = mkdtempSync(join(tmpdir(), 'ralph-bench-queue-'))
  const env = { ...process.env, RALPH_HOME: join(work, 'home') }
  mkdirSync(env.RALPH_HOME, { recursive: true })
  const rows: Row[] = []
  const node = () => timeRun(process.execPath, ['-e', '0'])
  try {
    let made = 0
    let buildSeconds = 0
    // ---- query stage and a mutation on 2,000 records ----
    if (runs('query')) {
      const big = join(work, 'big')
      mkdirSync(big)
      write(big, 'spec.md', '# Spec\n')
      timeRun(process.execPath, [ralph, 'init', '--project', big], { env })
      write(big, '.ralph/plan.jsonl', queueOf(RECORDS))
      // One mutation through the API so the file and its history agree before timing.
      await queue.addIssue({ projectDir: big, desc: 'bench start', options })

      const stage = paired(
        () => timeRun(process.execPath, [ralph, 'query', 'stage', '--project', big], { env }),
        node,
      )
      rows.push({
        what: `ralph query stage (${RECORDS} records)`,
        ms: stage.a,
        baseline: 'node -e 0',
        baselineMs: stage.b,
        target: `≤ 3× node (${stage.ratio.toFixed(2)}×)`,
        ok: stage.ratio <= 3,
      })

      let n = 0
      const mutation = paired(
        () =>
          timeRun(process.execPath, [ralph, 'task', 'add', `bench ${n++}`, '--json', '--project', big], {
            env,
          }),
        () => timeRun(process.execPath, [ralph, 'query', 'stage', '--project', big], { env }),
      )
      // "Process start" for a mutation is the CLI starting and loading the same queue: `ralph query stage`.
      rows.push({
        what: `ralph task add (write + history commit, ${RECORDS} records)`,
        ms: mutation.a,
        baseline: 'ralph query stage',
        baselineMs: mutation.b,
        target: `≤ 100 ms + start (+${(mutation.a - mutation.b).toFixed(0)} ms)`,
        ok: mutation.a - mutation.b <= 100,
      })

      const inProcess: number[] = []
      for (let i = 0; i < ROUNDS + 1; i++) {
        const t0 = performance.now()
        await queue.addIssue({ projectDir: big, desc: `in-process ${i}`, options })
        if (i > 0) inProcess.push(performance.now() - t0)
      }
      rows.push({
        what: `mutation in-process (addIssue, ${RECORDS} records)`,
        ms: median(inProcess),
        baseline: null,
        baselineMs: null,
        target: '≤ 100 ms',
        ok: median(inProcess) <= 100,
      })
    }

    // ---- log --all over 1,000 mutations ----
    if (runs('log')) {
      const hist = join(work, 'history')
      mkdirSync(hist)
      write(hist, 'spec.md', '# Spec\n')
      timeRun(process.execPath, [ralph, 'init', '--project', hist], { env })
      const built = performance.now()
      await queue.setSpec({ projectDir: hist, spec: 'spec.md', options })
      made++
      // Per task: add, done, then accept — or reject (tombstone, back to pending) and cancel — so --all has
      // accepted, rejected and cancelled tasks to tell apart.
      for (let i = 0; made < MUTATIONS; i++) {
        const taskId = (await queue.addTask({ projectDir: hist, name: `History task ${i}`, options })).ids[0]!
        made++
        if (made >= MUTATIONS) break
        await queue.markTaskDone({ projectDir: hist, id: taskId, doneAt: `c${i}`, options })
        made++
        if (made >= MUTATIONS) break
        if (i % 2 === 0) await queue.acceptTasks({ projectDir: hist, ids: [taskId], options })
        else {
          await queue.rejectTask({ projectDir: hist, id: taskId, reason: 'bench rejection', options })
          made++
          if (made >= MUTATIONS) break
          await queue.cancelTask({ projectDir: hist, id: taskId, options })
        }
        made++
      }
      buildSeconds = (performance.now() - built) / 1000
      const log = paired(
        () => timeRun(process.execPath, [ralph, 'log', '--all', '--json', '--project', hist], { env }),
        node,
      )
      rows.push({
        what: `ralph log --all (${made} mutations)`,
        ms: log.a,
        baseline: 'node -e 0',
        baselineMs: log.b,
        target: '≤ 1000 ms',
        ok: log.a <= 1000,
      })
    }

    // ---- verification overhead, instant model ----
    if (runs('verify')) {
      const proj = join(work, 'verify')
      mkdirSync(proj)
      const engine = new SnapshotEngine({ projectDir: proj, logger: memoryLogger() })
      await engine.init()
      for (let i = 0; i < 50; i++)
        write(proj, `src/module${i}.ts`, `export const value${i} = ${i}\n`.repeat(30))
      await engine.save({ kind: 'task-pre', task: 1 })
      for (let i = 0; i < 5; i++) {
        write(
          proj,
          `src/module${i}.ts`,
          `export const value${i} = ${i}\nexport function feature${i}() {\n  return ${i}\n}\n`.repeat(10),
        )
      }
      await engine.save({ kind: 'task-post', task: 1 })
      const llm = await startInstantModel()
      const accept = Array.from({ length: CRITERIA }, (_, i) => `LLM: feature${i} returns ${i}`)
      const once = async (): Promise<number> => {
        const t0 = performance.now()
        const r = await verifyTask({
          logger: memoryLogger(),
          projectDir: proj,
          task: { id: 't-bench', name: 'Features', accept },
          fromTag: 'task-1-pre',
          toTag: 'task-1-post',
          model: { provider: 'openai-compatible', model: 'fake-model', baseUrl: llm.baseUrl, apiKey: null },
          signal: new AbortController().signal,
          engine,
        })
        const ms = performance.now() - t0
        if (r.outcome !== 'PASS' || r.modelCalls !== CRITERIA) {
          throw new Error(
            `verification did not pass cleanly: ${r.outcome}, ${r.modelCalls} calls\n${r.feedback}`,
          )
        }
        return ms
      }
      const verifyTimes: number[] = []
      try {
        await once()
        for (let i = 0; i < ROUNDS; i++) verifyTimes.push(await once())
      } finally {
        await llm.close()
      }
      rows.push({
        what: `verify ${CRITERIA} LLM criteria, instant fake model (5 files changed)`,
        ms: median(verifyTimes),
        baseline: null,
        baselineMs: null,
        target: '≤ 200 ms',
        ok: median(verifyTimes) <= 200,
      })
    }

    // Whole-process figures swing with the machine's load: print it, so a slow run explains itself.
    const load = loadavg().map((l) => Number(l.toFixed(2)))
    console.log(`bench:queue — medians of ${ROUNDS} runs, ${new Date().toISOString()}`)
    console.log(`(load average ${load.join(' ')} on ${cpus().length} CPUs)`)
    if (made)
      console.log(`(history of ${made} mutations built in ${buildSeconds.toFixed(1)} s, not timed below)`)
    console.log('what'.padEnd(64), 'ms'.padStart(8), 'baseline ms'.padStart(12), '  target')
    for (const r of rows) {
      console.log(
        r.what.padEnd(64),
        r.ms.toFixed(0).padStart(8),
        (r.baselineMs === null ? '' : r.baselineMs.toFixed(0)).padStart(12),
        ` ${r.target} ${r.ok ? 'ok' : 'MISSED'}${r.baseline ? `  (baseline: ${r.baseline})` : ''}`,
      )
    }
    mkdirSync(join(root, 'bench-results'), { recursive: true })
    const file = join(root, 'bench-results', `queue-${Date.now()}.json`)
    writeFileSync(
      file,
      JSON.stringify(
        { rounds: ROUNDS, rows, load, cpus: cpus().length, at: new Date().toISOString() },
        null,
        2,
      ),
    )
    console.log(`written ${file}`)
    if (rows.some((r) => !r.ok)) process.exitCode = 1
  } finally {
    rmSync(work, { recursive: true, force: true })
  }
}

await main()
