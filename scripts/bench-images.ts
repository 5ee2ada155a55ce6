// `npm run bench:images`: issue 34's image scenario against the real web host (`node scripts/web.mjs`). Four PNGs of
// about 1 MB each that decode to 16000×16000 (a quarter of a billion pixels each) are sent with one `tasks.start`;
// the bench reports how long the call took to answer and what it answered, how long until the task was over (or
// refused), and the host's peak memory (the largest VmHWM of its processes, read from /proc; Linux only).
// The issue measured 3.9 GB for 83 s. A second case sends four 8000×8000 images, just under the largest an attachment may
// be, which are taken and sent to the (fake) model. BENCH_IMAGE_SIDES=16000,8000 picks the cases. Writes
// bench-results/images.json.
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createDeflate } from 'node:zlib'
import { say } from '../tests/integration/loop/harness'
import { startFakeLlmServer } from '../tests/fixtures/fakeLlmServer'
import { pngChunk } from '../tests/helpers/png'
import { makeTempDir } from '../tests/helpers/tempDir'
import { callApi, type WebHost } from '../tests/helpers/webHost'

const root = fileURLToPath(new URL('..', import.meta.url))
/** The issue's images, and the largest an attachment may be (8192×8192 is refused past, so just under it). */
const SIDES = (process.env.BENCH_IMAGE_SIDES ?? '16000,8000').split(',').map(Number)
const IMAGES = 4
/** The most the bench waits for the task to be over. */
const LIMIT_MS = 10 * 60_000

/** A side×side RGBA PNG of one colour, deflated row by row (its pixels never all in memory here). */
async function hugePng(side: number, rgba: [number, number, number, number]): Promise<Buffer> {
  const ihdr = Buffer.alloc(13)
  ihdr.writeUInt32BE(side, 0)
  ihdr.writeUInt32BE(side, 4)
  ihdr[8] = 8
  ihdr[9] = 6
  const row = Buffer.alloc(1 + side * 4)
  for (let x = 0; x < side; x++) row.set(rgba, 1 + x * 4)
  const deflate = createDeflate({ level: 9 })
  const out: Buffer[] = []
  deflate.on('data', (c: Buffer) => out.push(c))
  const ended = once(deflate, 'end')
  for (let y = 0; y < side; y++) if (!deflate.write(row)) await once(deflate, 'drain')
  deflate.end()
  await ended
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', ihdr),
    pngChunk('IDAT', Buffer.concat(out)),
    pngChunk('IEND', Buffer.alloc(0)),
  ])
}

/** The process and its descendants (Linux /proc). */
function tree(pid: number): number[] {
  const parents = new Map<number, number[]>()
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8')
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
      parents.set(ppid, [...(parents.get(ppid) ?? []), Number(name)])
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT' && (err as NodeJS.ErrnoException).code !== 'ESRCH')
        throw err // a process that ended meanwhile is no longer in the tree
    }
  }
  const out = [pid]
  for (let i = 0; i < out.length; i++) out.push(...(parents.get(out[i]!) ?? []))
  return out
}

/** The largest peak resident memory (VmHWM, kB → MB) among the host's processes. */
function peakMb(pid: number): number {
  let peak = 0
  for (const p of tree(pid)) {
    const status = existsSync(`/proc/${p}/status`) ? readFileSync(`/proc/${p}/status`, 'utf8') : ''
    const kb = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0)
    peak = Math.max(peak, kb / 1024)
  }
  return Math.round(peak)
}

async function startHost(env: NodeJS.ProcessEnv): Promise<{ host: WebHost; pid: number }> {
  const child = spawn(process.execPath, ['scripts/web.mjs', '--port', '0'], {
    cwd: root,
    env: { ...process.env, ...env },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  const url = await new Promise<string>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString()
      const match = /(http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]+)/.exec(output)
      if (match) resolve(match[1]!)
    }
    child.stdout.on('data', onData)
    child.stderr.on('data', onData)
    child.on('exit', (code) => reject(new Error(`web host exited with ${code}:\n${output}`)))
  })
  const parsed = new URL(url)
  const host: WebHost = {
    url,
    origin: parsed.origin,
    token: parsed.searchParams.get('token')!,
    port: Number(parsed.port),
    output: () => output,
    running: () => child.exitCode === null,
    stop: async () => {
      if (child.exitCode !== null) return
      process.kill(-child.pid!, 'SIGTERM')
      await once(child, 'exit')
    },
  }
  return { host, pid: child.pid! }
}

async function runCase(side: number) {
  const started = Date.now()
  const images: Buffer[] = []
  for (let i = 0; i < IMAGES; i++) images.push(await hugePng(side, [40 * i, 80, 160, 255]))
  console.log(
    `${IMAGES} PNGs of ${side}×${side}: ${images.map((b) => (b.length / 1e6).toFixed(2)).join(', ')} MB ` +
      `(made in ${((Date.now() - started) / 1000).toFixed(1)} s)`,
  )
  const home = makeTempDir('ralph-bench-images-home-')
  const work = makeTempDir('ralph-bench-images-work-')
  const llm = await startFakeLlmServer()
  llm.fallback = say('Nothing to do.')
  const { host, pid } = await startHost({
    RALPH_HOME: home.path,
    RALPH_PROVIDER: 'openai-compatible',
    RALPH_MODEL: 'fake-model',
    RALPH_BASE_URL: llm.baseUrl,
  })
  try {
    const dir = join(work.path, 'app')
    mkdirSync(dir)
    const opened = await callApi(host, 'projects.open', { path: dir })
    if (!opened.ok) throw new Error(`projects.open failed: ${JSON.stringify(opened)}`)
    const projectId = opened.value.id as number
    const idleMb = peakMb(pid)
    const t0 = performance.now()
    const answer = await callApi(host, 'tasks.start', {
      projectId,
      message: 'Make the page look like these mockups.',
      maxIterations: 1,
      attachments: images.map((b, i) => ({
        name: `mockup-${i}.png`,
        mediaType: 'image/png',
        base64: b.toString('base64'),
      })),
    })
    const answeredMs = performance.now() - t0
    let overMs = answeredMs
    if (answer.ok) {
      // Started: the task is over when the project no longer runs one (polled; the limit is generous).
      for (;;) {
        const running = await callApi(host, 'tasks.running', { projectId })
        if (!running.ok || running.value.running === false) break
        if (performance.now() - t0 > LIMIT_MS) throw new Error('the task was still running after 10 minutes')
        await new Promise((r) => setTimeout(r, 250))
      }
      overMs = performance.now() - t0
    }
    const result = {
      side,
      images: IMAGES,
      pngMb: images.map((b) => Number((b.length / 1e6).toFixed(2))),
      answer: answer.ok ? 'started' : `refused: ${answer.error?.message ?? JSON.stringify(answer.value)}`,
      answeredMs: Math.round(answeredMs),
      overMs: Math.round(overMs),
      modelCalls: llm.requests.length,
      hostIdlePeakMb: idleMb,
      hostPeakMb: peakMb(pid),
      issue: { hostPeakMb: 3900, seconds: 83 },
    }
    console.log(
      `  tasks.start answered in ${(result.answeredMs / 1000).toFixed(2)} s: ${result.answer}\n` +
        `  task over (or refused) after ${(result.overMs / 1000).toFixed(2)} s, ${result.modelCalls} model calls\n` +
        `  web host peak RSS ${result.hostPeakMb} MB (before the call: ${idleMb} MB); issue 34: 3900 MB, 83 s`,
    )
    return result
  } finally {
    await host.stop()
    await llm.close()
    home.cleanup()
    work.cleanup()
  }
}

const results = []
for (const side of SIDES) results.push(await runCase(side))
mkdirSync('bench-results', { recursive: true })
writeFileSync(join('bench-results', 'images.json'), `${JSON.stringify(results, null, 2)}\n`)
