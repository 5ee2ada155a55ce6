// The chat's rows of npm run bench:ui (issue 12), against the real web host in Chromium, and the core in-process:
//   - a conversation of 300 finished tasks shows its newest card ≤ 500 ms after navigation, and scrolls from the
//     bottom to the top with no long task over 50 ms;
//   - 5,000 streamed deltas at 200 per second into one card: no long task over 50 ms, p95 delta-to-DOM ≤ 50 ms;
//   - the core stays responsive during a task on a 10,000-file project (event-loop delay p99 ≤ 50 ms, max ≤ 200);
//   - the renderer's initial JavaScript ≤ 500 KB gzipped, and the Message box is enabled ≤ 1 s after navigation.
import { execFileSync } from 'node:child_process'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { monitorEventLoopDelay, performance } from 'node:perf_hooks'
import { gzipSync } from 'node:zlib'
import type { Page } from 'playwright-core'
import { createCore } from '../src/main/api/core'
import { ConversationsRepo } from '../src/main/store/conversationsRepo'
import { openDatabase } from '../src/main/store/database'
import { RunsRepo } from '../src/main/store/runsRepo'
import { databaseFile } from '../src/main/workspace/appPaths'
import { startFakeLlmServer, type ScriptedReply } from '../tests/fixtures/fakeLlmServer'
import type { Browser } from 'playwright-core'
import { makeTempDir } from '../tests/helpers/tempDir'
import { callApi, startWebHost } from '../tests/helpers/webHost'

export type Row = (name: string, samples: number[], target: number, unit?: string) => void

const TASKS = 300
const ITERATIONS = 20
const TOOL_CALLS = 100
const DELTAS = 5000
const DELTA_INTERVAL_MS = 5

/** Writes 300 finished tasks into the conversation: each with its run, 20 iterations and 100 tool calls. */
export function seedConversation(appDataDir: string, projectId: number, projectPath: string): void {
  const db = openDatabase(databaseFile(appDataDir))
  const runs = new RunsRepo(db)
  const chat = new ConversationsRepo(db)
  const conversation = chat.current(projectId)
  db.transaction(() => {
    for (let task = 1; task <= TASKS; task++) {
      const start = Date.now() - (TASKS - task) * 60_000
      chat.add(conversation.id, {
        kind: 'user',
        mode: 'task',
        text: `Request number ${task}: change section ${task}`,
      })
      const card = chat.add(conversation.id, { kind: 'task' })
      const runId = runs.startRun({ projectId, projectPath, task, message: `request ${task}` }, start)
      for (let i = 1; i <= ITERATIONS; i++) {
        const iteration = runs.startIteration(runId, i, 'build', 4000, start + i * 1000)
        for (let k = 0; k < TOOL_CALLS / ITERATIONS; k++) {
          runs.recordToolCall(iteration, k, {
            name: k % 2 ? 'edit_file' : 'read_file',
            argsJson: JSON.stringify({ path: `src/section${task}/file${k}.ts` }),
            ok: true,
            resultBytes: 400,
            durationMs: 3,
            error: null,
          })
        }
        runs.endIteration(
          iteration,
          { signature: `s${i}`, toolCalls: 5, outcome: 'continue' },
          start + i * 1000 + 900,
        )
      }
      runs.recordGate(runId, ITERATIONS, 1, {
        gate: 'changes-made',
        severity: 'pass',
        message: '3 files changed',
      })
      runs.updateRun(runId, {
        type: 'mutation',
        title: `Change section ${task}`,
        status: 'complete',
        iterations: ITERATIONS,
        endedAt: start + ITERATIONS * 1000 + 1000,
      })
      chat.update(card, { task, runId, outcome: `Section ${task} now says what it should.` })
    }
  })()
  db.close()
}

/** Long tasks (over 50 ms) the page runs while `during` runs; the observer is in the page, so nothing is missed. */
async function longTasksDuring(page: Page, during: () => Promise<void>): Promise<number[]> {
  await page.evaluate(`(() => {
    window.__long = []
    window.__obs?.disconnect()
    window.__obs = new PerformanceObserver((list) => list.getEntries().forEach((e) => window.__long.push(e.duration)))
    window.__obs.observe({ type: 'longtask' })
  })()`)
  await during()
  return (await page.evaluate('window.__long')) as number[]
}

/**
 * The renderer as users get it: a build made under vitest (NODE_ENV=test, through tests/global-setup.ts) has
 * React's development build in it, several times slower, and would measure that instead. Rebuilt if so.
 */
function ensureProductionRenderer(): void {
  const html = readFileSync(join('out', 'renderer', 'index.html'), 'utf8')
  const scripts = [...html.matchAll(/src="\.?\/?(assets\/[^"]+\.js)"/g)].map((m) => m[1]!)
  const development = scripts.some((file) =>
    readFileSync(join('out', 'renderer', file), 'utf8').includes('jsxDEV'),
  )
  if (!development) return
  console.log('out/renderer is a development build (made under vitest): building it for production …')
  execFileSync(
    process.execPath,
    [
      join('node_modules', 'vite', 'bin', 'vite.js'),
      'build',
      '-c',
      'vite.renderer.config.ts',
      '--logLevel',
      'error',
    ],
    { stdio: 'inherit', env: { ...process.env, NODE_ENV: 'production' } },
  )
}

export async function chatRows(browser: Browser, row: Row): Promise<void> {
  const home = makeTempDir('ralph-bench-chat-home-')
  const work = makeTempDir('ralph-bench-chat-work-')
  const llm = await startFakeLlmServer()
  const host = await startWebHost({
    RALPH_HOME: home.path,
    RALPH_PROVIDER: 'openai-compatible',
    RALPH_MODEL: 'fake-model',
    RALPH_BASE_URL: llm.baseUrl,
  })
  try {
    ensureProductionRenderer()
    // The renderer's initial JavaScript: what index.html loads before anything lazy.
    const html = readFileSync(join('out', 'renderer', 'index.html'), 'utf8')
    const initial = [...html.matchAll(/(?:src|href)="\.?\/?(assets\/[^"]+\.js)"/g)].map((m) => m[1]!)
    const gzipped = initial.reduce(
      (sum, file) => sum + gzipSync(readFileSync(join('out', 'renderer', file))).length,
      0,
    )
    row('renderer initial JS, gzipped (KB)', [gzipped / 1024], 500, 'KB')

    const big = join(work.path, 'long-chat')
    mkdirSync(big)
    writeFileSync(join(big, 'README.md'), '# A long conversation\n')
    const opened = await callApi(host, 'projects.open', { path: big })
    if (!opened.ok) throw new Error(JSON.stringify(opened))
    const projectId = opened.value.id as number
    seedConversation(home.path, projectId, big)

    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } })
    await page.goto(host.url)
    await page.waitForURL(`${host.origin}/`)
    const newestCard = page.getByRole('article', { name: `Task ${TASKS}: Change section ${TASKS}` })
    const openTimes: number[] = []
    const enabledTimes: number[] = []
    for (let i = 0; i < 5; i++) {
      await page.goto(`${host.origin}/#/projects`)
      await page.getByRole('list', { name: 'Recent projects' }).waitFor()
      // In-app navigation, as a user clicks a project: from the hash change to the newest card and an enabled box.
      const [card, box] = (await page.evaluate(`new Promise((resolve) => {
        const t0 = performance.now()
        let card = null
        location.hash = '#/project/${projectId}'
        const check = () => {
          const now = performance.now() - t0
          if (card === null && document.querySelector('[aria-label="Task ${TASKS}: Change section ${TASKS}"]')) card = now
          const box = document.querySelector('textarea[aria-label="Message"]')
          if (card !== null && box && !box.disabled) resolve([card, now])
          else requestAnimationFrame(check)
        }
        check()
      })`)) as [number, number]
      openTimes.push(card)
      enabledTimes.push(box)
    }
    row('300-task chat: newest card after navigation', openTimes, 500)
    row('project page: Message box enabled', enabledTimes, 1000)

    await newestCard.waitFor()
    const scrollLong = await longTasksDuring(page, async () => {
      // Scroll up a screen per frame until the first task is in view (older pages load on the way).
      await page.evaluate(`new Promise((resolve) => {
        const el = document.querySelector('.chat-scroller')
        const step = () => {
          if (document.querySelector('[aria-label="Task 1: Change section 1"]')) return resolve(null)
          el.scrollBy(0, -el.clientHeight)
          requestAnimationFrame(step)
        }
        step()
      })`)
    })
    row('300-task chat: longest task scrolling to the top', [Math.max(0, ...scrollLong)], 50)

    // Streaming: one running task receives 5,000 deltas at 200 per second, each stamped with its send time.
    const stream = join(work.path, 'streaming')
    mkdirSync(stream)
    writeFileSync(join(stream, 'index.html'), '<h1>hi</h1>\n')
    const streamProject = await callApi(host, 'projects.open', { path: stream })
    if (!streamProject.ok) throw new Error(JSON.stringify(streamProject))
    llm.enqueue(
      {
        kind: 'json',
        value: {
          type: 'mutation',
          title: 'Stream',
          requirements: [{ marker: 'MODIFY', description: 'the heading', count: null }],
          scope: { preserve: [], affectedFiles: ['index.html'] },
          clarification: null,
        },
      },
      {
        kind: 'tools',
        paced: { count: DELTAS, intervalMs: DELTA_INTERVAL_MS, piece: () => ` @${Date.now()};` },
        calls: [
          { name: 'edit_file', arguments: { path: 'index.html', old_string: 'hi', new_string: 'Hello' } },
        ],
      },
      { kind: 'tools', calls: [{ name: 'mark_complete', arguments: { summary: 'Streamed.' } }] },
    )
    await page.goto(`${host.origin}/#/project/${streamProject.value.id}`)
    await page.getByRole('textbox', { name: 'Message' }).waitFor()
    await page.evaluate(`(() => {
      window.__lat = []
      new MutationObserver(() => {
        const live = document.querySelector('[data-testid=task-live]')
        const m = live && /@(\\d{13});\\s*$/.exec(live.textContent)
        if (m) window.__lat.push(Date.now() - Number(m[1]))
      }).observe(document.body, { subtree: true, childList: true, characterData: true })
    })()`)
    const streamLong = await longTasksDuring(page, async () => {
      await page.getByRole('textbox', { name: 'Message' }).fill('stream the heading')
      await page.getByRole('button', { name: 'Send' }).click()
      await page
        .getByRole('article', { name: 'Task 1: Stream' })
        .getByText('Complete', { exact: true })
        .waitFor({ timeout: 120_000 })
    })
    const latencies = ((await page.evaluate('window.__lat')) as number[]).sort((a, b) => a - b)
    const p95 = latencies[Math.floor(latencies.length * 0.95)] ?? Number.NaN
    row(`streaming: p95 delta-to-DOM (${latencies.length} updates seen)`, [p95], 50)
    row('streaming: longest task', [Math.max(0, ...streamLong)], 50)
  } finally {
    await host.stop()
    await llm.close()
    home.cleanup()
    work.cleanup()
  }
}

/** The core in this process runs a task on a 10,000-file project; the event loop's delay is sampled meanwhile. */
export async function coreResponsiveness(row: Row): Promise<void> {
  const home = makeTempDir('ralph-bench-core-home-')
  const work = makeTempDir('ralph-bench-core-work-')
  const llm = await startFakeLlmServer()
  const dir = join(work.path, 'ten-thousand')
  for (let d = 0; d < 100; d++) {
    mkdirSync(join(dir, `src/d${d}`), { recursive: true })
    for (let f = 0; f < 100; f++)
      writeFileSync(join(dir, `src/d${d}/f${f}.ts`), `export const v${f} = ${d * f}\n`)
  }
  writeFileSync(join(dir, 'index.html'), '<h1>hi</h1>\n')
  const core = createCore({
    appDataDir: home.path,
    env: { RALPH_PROVIDER: 'openai-compatible', RALPH_MODEL: 'fake-model', RALPH_BASE_URL: llm.baseUrl },
    host: { kind: 'web', openedFrom: 'bench' },
  })
  try {
    const opened = await core.dispatch('projects.open', { path: dir })
    if (!opened.ok) throw new Error(JSON.stringify(opened))
    const projectId = (opened.value as { id: number }).id
    const edits: ScriptedReply[] = Array.from({ length: 5 }, (_, i) => ({
      kind: 'tools',
      calls: [
        { name: 'write_file', arguments: { path: `src/d${i}/f0.ts`, content: `export const v0 = ${i}\n` } },
      ],
    }))
    llm.enqueue(
      {
        kind: 'json',
        value: {
          type: 'mutation',
          title: 'Touch five files',
          requirements: [{ marker: 'MODIFY', description: 'five files', count: null }],
          scope: { preserve: [], affectedFiles: ['src/d0/f0.ts'] },
          clarification: null,
        },
      },
      ...edits,
      { kind: 'tools', calls: [{ name: 'mark_complete', arguments: { summary: 'Touched five files.' } }] },
    )
    const finished = new Promise<void>((resolve) =>
      core.events.subscribe((e) => (e.name === 'loop.finished' ? resolve() : undefined)),
    )
    const histogram = monitorEventLoopDelay({ resolution: 10 })
    histogram.enable()
    const started = performance.now()
    const start = await core.dispatch('tasks.start', { projectId, message: 'touch five files' })
    if (!start.ok) throw new Error(JSON.stringify(start))
    await finished
    histogram.disable()
    const ms = (ns: number) => ns / 1e6
    row(
      `core during a 10,000-file task (${Math.round(performance.now() - started)} ms): loop delay p99`,
      [ms(histogram.percentile(99))],
      50,
    )
    row('  the same: loop delay max', [ms(histogram.max)], 200)
  } finally {
    await core.close()
    await llm.close()
    home.cleanup()
    work.cleanup()
  }
}

/** `npx tsx scripts/bench-ui-chat.ts`: the chat's rows alone (npm run bench:ui runs them after the editor's). */
async function chatOnly(): Promise<void> {
  const { launchChromium } = await import('../tests/helpers/browser')
  const rows: { name: string; samples: number[]; target: number; unit: string }[] = []
  const row: Row = (name, samples, target, unit = 'ms') => rows.push({ name, samples, target, unit })
  const browser = await launchChromium()
  try {
    await chatRows(browser, row)
  } finally {
    await browser.close()
  }
  await coreResponsiveness(row)
  for (const r of rows) {
    const sorted = [...r.samples].sort((a, b) => a - b)
    const median = sorted[Math.floor(sorted.length / 2)] ?? Number.NaN
    console.log(
      r.name.padEnd(72),
      `${median.toFixed(1)} ${r.unit}`.padStart(10),
      `max ${Math.max(...r.samples).toFixed(1)}`.padStart(12),
      `target ${r.target}`.padStart(12),
    )
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  chatOnly().catch((err) => {
    console.error(err)
    process.exit(1)
  })
}
