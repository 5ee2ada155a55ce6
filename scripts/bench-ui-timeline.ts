// The timeline's rows of npm run bench:ui (issue 13), against the real web host in Chromium:
//   - a timeline of 2,000 snapshots renders ≤ 300 ms (from the Timeline tab's press to its rows) and scrolls from
//     the newest to the oldest with no long task over 50 ms;
//   - a rollback of 100 changed files in a 10,000-file project ≤ 1 s, from the click on the dialog's "Roll back"
//     to the toast;
//   - the diff of a 5,000-line file opens ≤ 300 ms once Monaco is loaded (from the click on the file to both sides
//     shown).
import { spawn } from 'node:child_process'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import type { Browser, Page } from 'playwright-core'
import { SnapshotEngine, snapshotTags } from '../src/main/snapshots'
import { commitMessage } from '../src/main/snapshots/tags'
import { makeTempDir } from '../tests/helpers/tempDir'
import { callApi, startWebHost, type WebHost } from '../tests/helpers/webHost'
import { memoryLogger } from '../src/main/workspace/logFile'

export type Row = (name: string, samples: number[], target: number, unit?: string) => void

const SNAPSHOTS = 2000
const FILES = 10_000
const CHANGED = 100
const DIFF_LINES = 5000
const RENDER_RUNS = 5
const ROLLBACK_RUNS = 5
const DIFF_RUNS = 5

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
 * A project whose store holds 2,000 snapshots: one real save, then 1,000 tasks' pre and post snapshots written
 * in one `git fast-import` (2,000 engine saves would take minutes), each commit carrying the engine's own
 * metadata trailers (commitMessage), so the store lists them exactly as snapshots it took.
 */
async function seedTimeline(dir: string): Promise<void> {
  mkdirSync(dir, { recursive: true })
  writeFileSync(join(dir, 'index.html'), '<h1>Two thousand snapshots</h1>\n')
  const engine = new SnapshotEngine({ projectDir: dir, logger: memoryLogger() })
  const first = await engine.save({ kind: 'manual', message: 'the start' })
  const start = first.createdAt + 1000
  const lines: string[] = []
  for (let i = 0; i < SNAPSHOTS; i++) {
    const task = Math.floor(i / 2) + 1
    const kind = i % 2 === 0 ? 'task-pre' : 'task-post'
    const tag = kind === 'task-pre' ? snapshotTags.taskPre(task) : snapshotTags.taskPost(task)
    const createdAt = start + i * 60_000
    const message = commitMessage({
      tag,
      kind,
      task,
      message: kind === 'task-pre' ? `pre-task ${task}: change section ${task % 37}` : '',
      createdAt,
      added: i % 3,
      modified: (i % 5) + 1,
      deleted: i % 2,
      skipped: [],
      skippedTotal: 0,
      durationMs: 12,
      rollbackTarget: null,
    })
    const seconds = Math.floor(createdAt / 1000)
    lines.push(
      `commit refs/tags/${tag}`,
      `committer Ralph Studio <snapshots@ralph.local> ${seconds} +0000`,
      `data ${Buffer.byteLength(message)}`,
      message,
      `from ${first.commit}`,
      '',
    )
  }
  await new Promise<void>((resolve, reject) => {
    const git = spawn('git', [`--git-dir=${engine.paths.gitDir}`, 'fast-import', '--quiet'], {
      stdio: ['pipe', 'ignore', 'inherit'],
    })
    git.on('error', reject)
    git.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`fast-import exited with ${code}`))))
    git.stdin.end(lines.join('\n'))
  })
}

/** A 10,000-file project (its baseline taken in the background at open) and a snapshot after 100 files changed. */
async function seedRollbackProject(
  host: WebHost,
  dir: string,
): Promise<{ projectId: number; target: string }> {
  for (let d = 0; d < FILES / 100; d++) {
    mkdirSync(join(dir, `src/d${d}`), { recursive: true })
    for (let f = 0; f < 100; f++)
      writeFileSync(
        join(dir, `src/d${d}/f${f}.ts`),
        `export const v${f} = ${d * f}\n${'// line\n'.repeat(10)}`,
      )
  }
  const opened = await callApi(host, 'projects.open', { path: dir })
  if (!opened.ok) throw new Error(JSON.stringify(opened))
  const projectId = opened.value.id as number
  // The baseline runs in the background; a save waits for it.
  const before = await callApi(host, 'snapshots.save', {
    projectId,
    kind: 'manual',
    message: 'before the edit',
  })
  if (!before.ok) throw new Error(JSON.stringify(before))
  for (let i = 0; i < CHANGED; i++)
    writeFileSync(join(dir, `src/d${i}/f${i % 100}.ts`), `export const changed${i} = true\n`)
  const after = await callApi(host, 'snapshots.save', {
    projectId,
    kind: 'manual',
    message: 'after the edit',
  })
  if (!after.ok) throw new Error(JSON.stringify(after))
  return { projectId, target: before.value.tag as string }
}

/** Six 5,000-line files, changed in a hundred places between two snapshots. */
async function seedDiffProject(host: WebHost, dir: string): Promise<{ projectId: number; files: string[] }> {
  mkdirSync(dir, { recursive: true })
  const files = Array.from({ length: DIFF_RUNS + 1 }, (_, i) => `big${i}.ts`)
  const body = (file: number, version: number) =>
    Array.from({ length: DIFF_LINES }, (_, l) =>
      version === 1 && l % 50 === 7
        ? `export const line${l} = 'edited in v2' // ${file}`
        : `export const line${l} = ${l} // ${file}`,
    ).join('\n') + '\n'
  files.forEach((f, i) => writeFileSync(join(dir, f), body(i, 0)))
  writeFileSync(join(dir, 'small.ts'), 'export const a = 1\n')
  const opened = await callApi(host, 'projects.open', { path: dir })
  if (!opened.ok) throw new Error(JSON.stringify(opened))
  const projectId = opened.value.id as number
  const v1 = await callApi(host, 'snapshots.save', { projectId, kind: 'manual', message: 'v1' })
  if (!v1.ok) throw new Error(JSON.stringify(v1))
  files.forEach((f, i) => writeFileSync(join(dir, f), body(i, 1)))
  writeFileSync(join(dir, 'small.ts'), 'export const a = 2\n')
  const v2 = await callApi(host, 'snapshots.save', { projectId, kind: 'manual', message: 'v2' })
  if (!v2.ok) throw new Error(JSON.stringify(v2))
  return { projectId, files }
}

export async function timelineRows(browser: Browser, row: Row): Promise<void> {
  const home = makeTempDir('ralph-bench-timeline-home-')
  const work = makeTempDir('ralph-bench-timeline-work-')
  const longDir = join(work.path, 'two-thousand')
  await seedTimeline(longDir)
  const host = await startWebHost({ RALPH_HOME: home.path })
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } })
  try {
    const opened = await callApi(host, 'projects.open', { path: longDir })
    if (!opened.ok) throw new Error(JSON.stringify(opened))
    const projectId = opened.value.id as number
    await page.goto(host.url)
    await page.waitForURL(`${host.origin}/`)
    await page.goto(`${host.origin}/#/project/${projectId}?panel=queue`)
    await page.getByRole('tab', { name: 'Queue' }).waitFor()

    // Render: from pressing the Timeline tab to its first rows (the first run reads the page from SQLite).
    const renders: number[] = []
    for (let i = 0; i < RENDER_RUNS; i++) {
      await page.getByRole('tab', { name: 'Queue' }).click()
      await page.getByRole('list', { name: 'Snapshots' }).waitFor({ state: 'detached' })
      renders.push(
        (await page.evaluate(`new Promise((resolve) => {
          const tab = [...document.querySelectorAll('[role=tab]')].find((t) => t.textContent.includes('Timeline'))
          const t0 = performance.now()
          // Radix tabs select on mousedown.
          tab.dispatchEvent(new MouseEvent('mousedown', { bubbles: true, button: 0 }))
          tab.click()
          const check = () =>
            document.querySelector('[aria-label="Snapshots"] [role=listitem][aria-label^="task-1000-post,"]')
              ? resolve(performance.now() - t0)
              : requestAnimationFrame(check)
          check()
        })`)) as number,
      )
    }
    row(`timeline of ${SNAPSHOTS.toLocaleString('en-US')} snapshots: rows shown`, renders, 300)

    // Scroll from the newest to the oldest, a screen per frame; older pages load on the way.
    const scrollLong = await longTasksDuring(page, async () => {
      await page.evaluate(`new Promise((resolve) => {
        const el = document.querySelector('.timeline-scroller')
        const step = () => {
          if (document.querySelector('[role=listitem][aria-label^="manual-"]')) return resolve(null)
          el.scrollBy(0, el.clientHeight)
          requestAnimationFrame(step)
        }
        step()
      })`)
    })
    row('timeline: longest task scrolling to the oldest', [Math.max(0, ...scrollLong)], 50)

    // Rollback: 100 changed files in a 10,000-file project, through the dialog; Undo between runs.
    const rb = await seedRollbackProject(host, join(work.path, 'ten-thousand'))
    await page.goto(`${host.origin}/#/project/${rb.projectId}?panel=timeline`)
    const list = page.getByRole('list', { name: 'Snapshots' })
    const rollbacks: number[] = []
    // Each run adds safety snapshots above the target: the search keeps it in view.
    await page.getByRole('searchbox', { name: 'Search snapshots' }).fill('before the edit')
    for (let i = 0; i < ROLLBACK_RUNS; i++) {
      const item = list.getByRole('listitem', { name: new RegExp(`^${rb.target},`) })
      // Dispatched: the toasts of earlier runs may lie over the list.
      await item.getByRole('button', { name: 'Roll back' }).dispatchEvent('click')
      const dialog = page.getByRole('alertdialog', { name: `Roll back to ${rb.target}` })
      await dialog.getByRole('list', { name: 'Overwritten' }).waitFor({ timeout: 60_000 })
      await page.evaluate(`(() => {
        window.__toast = null
        const toasts = () => [...document.querySelectorAll('[data-sonner-toast]')].filter((t) => t.textContent.includes('Rolled back to'))
        const earlier = new Set(toasts())
        new MutationObserver((_, obs) => {
          if (toasts().some((t) => !earlier.has(t))) {
            window.__toast = performance.now()
            obs.disconnect()
          }
        }).observe(document.body, { subtree: true, childList: true, characterData: true })
        const button = [...document.querySelectorAll('[role=alertdialog] button')].find((b) => b.textContent.trim() === 'Roll back')
        window.__click = performance.now()
        button.click()
      })()`)
      // Polled inside the page (the app's CSP forbids the string predicates waitForFunction compiles).
      await page.evaluate(`new Promise((resolve) => {
        const check = () => (window.__toast !== null ? resolve(null) : setTimeout(check, 10))
        check()
      })`)
      rollbacks.push((await page.evaluate('window.__toast - window.__click')) as number)
      await dialog.waitFor({ state: 'detached' })
      const undo = await callApi(host, 'snapshots.undo', { projectId: rb.projectId })
      if (!undo.ok) throw new Error(JSON.stringify(undo))
    }
    row(`rollback of ${CHANGED} files in a 10,000-file project: click to toast`, rollbacks, 1000)

    // Diff: Monaco loaded once on a small file, then each 5,000-line file from its click to both sides shown.
    const df = await seedDiffProject(host, join(work.path, 'big-files'))
    await page.goto(`${host.origin}/#/project/${df.projectId}?panel=timeline`)
    const v2 = page
      .getByRole('list', { name: 'Snapshots' })
      .getByRole('listitem', { name: /^manual-.*, v2,/ })
    await v2.getByRole('button', { name: 'Compare' }).click()
    const files = page.getByRole('list', { name: 'Changed files' })
    await files
      .getByRole('listitem', { name: /^small\.ts,/ })
      .getByRole('button')
      .click()
    await page
      .getByTestId('compare-editor')
      .locator('.editor.modified .view-line')
      .first()
      .waitFor({ timeout: 60_000 })
    // Side by side: both sides' lines are on screen.
    await page.getByRole('radio', { name: 'Side by side' }).click()
    await page
      .getByTestId('compare-editor')
      .locator('.editor.original .view-line')
      .first()
      .waitFor({ timeout: 60_000 })
    const diffs: number[] = []
    for (const [i, file] of df.files.slice(0, DIFF_RUNS).entries()) {
      await files.getByRole('listitem', { name: new RegExp(`^${file.replace('.', '\\.')},`) }).waitFor()
      diffs.push(
        (await page.evaluate(`new Promise((resolve, reject) => {
          const item = document.querySelector('[aria-label="Changed files"] [aria-label^="${file},"] button')
          const t0 = performance.now()
          // Clicked from a timer: the switch unmounts the previous diff, and @monaco-editor/react's known
          // "TextModel got disposed before DiffEditorWidget model got reset" is thrown from it, not into this promise.
          setTimeout(() => item.click(), 0)
          const shown = (side) =>
            [...document.querySelectorAll('[data-testid=compare-editor] .editor.' + side + ' .view-line')]
              .some((l) => l.textContent.replace(/\\u00a0/g, ' ').includes('// ${i}'))
          const check = () => {
            if (shown('original') && shown('modified')) resolve(performance.now() - t0)
            else if (performance.now() - t0 > 30000) reject(new Error('the diff of ${file} did not show'))
            else requestAnimationFrame(check)
          }
          check()
        })`)) as number,
      )
    }
    row(`diff of a ${DIFF_LINES.toLocaleString('en-US')}-line file opens (Monaco loaded)`, diffs, 300)
  } finally {
    await page.close()
    await host.stop()
    home.cleanup()
    work.cleanup()
  }
}

/** `npx tsx scripts/bench-ui-timeline.ts`: the timeline's rows alone. */
async function timelineOnly(): Promise<void> {
  const { launchChromium } = await import('../tests/helpers/browser')
  const rows: { name: string; samples: number[]; target: number; unit: string }[] = []
  const row: Row = (name, samples, target, unit = 'ms') => rows.push({ name, samples, target, unit })
  const browser = await launchChromium()
  try {
    await timelineRows(browser, row)
  } finally {
    await browser.close()
  }
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
  timelineOnly().catch((err) => {
    console.error(err)
    process.exit(1)
  })
}
