// Images are sent fitted to the provider's limits (issue 27): `ralph run --image` of a 4000×3000 screenshot in a
// child process, the product's real AI SDK clients over real HTTP to the wire-format fakes, and the image in each
// recorded request decoded with sharp. The user's file is stored as it was given.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import sharp from 'sharp'
import { describe, expect, it } from 'vitest'
import { createCore } from '../../../src/main/api/core'
import { runCli } from '../../helpers/cli'
import { solidPng } from '../../helpers/png'
import { makeTempDir } from '../../helpers/tempDir'
import { parsed, tools } from '../loop/harness'
import { modelCalls, PROVIDERS, providerEnv, useWireProject } from './wire'
import { wireImages } from './wireImages'

/** A 4000×3000 PNG with content (a gradient), well under the 5 MB an attachment may be. */
async function screenshot(): Promise<Buffer> {
  const width = 4000
  const height = 3000
  const raw = Buffer.alloc(width * height * 3)
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 3
      raw[i] = (x * 255) / width
      raw[i + 1] = (y * 255) / height
      raw[i + 2] = 128
    }
  return sharp(raw, { raw: { width, height, channels: 3 } })
    .png()
    .toBuffer()
}

const LIMITS = {
  // Anthropic's recommended size: 1568 px on the long edge, ~1.15 megapixels.
  anthropic: (w: number, h: number) => Math.max(w, h) <= 1568 && w * h <= 1_150_000,
  // OpenAI's high detail: within 2048×2048, the short side at most 768 px.
  openai: (w: number, h: number) => Math.max(w, h) <= 2048 && Math.min(w, h) <= 768,
} as const

const CASES = PROVIDERS.filter((p) => p.provider === 'anthropic' || p.provider === 'openai')

describe.each(CASES)('a large image through $provider', { timeout: 180_000 }, (c) => {
  const w = useWireProject(c, 'ralph-images-fit-')

  it('is sent scaled within the limit (aspect kept) while the stored file is the original; a small one is sent as it is', async () => {
    const big = await screenshot()
    expect(big.length).toBeLessThan(5 * 1024 * 1024)
    const image = join(w.home.path, 'screen.png')
    writeFileSync(image, big)
    const small = solidPng(2, 1, [0, 0, 255, 255])
    writeFileSync(join(w.project.path, 'small.png'), small)
    w.server.enqueue(
      parsed({ type: 'bugfix', title: 'Fix the screen' }),
      tools(['read_file', { path: 'small.png' }]),
      tools(
        ['write_file', { path: 'screen.txt', content: 'fixed' }],
        ['mark_complete', { summary: 'Fixed the screen.' }],
      ),
    )
    const result = await runCli(
      ['run', 'fix the screen', '--image', image, '--json', '--project', w.project.path],
      {
        env: w.env,
      },
    )
    expect(result.code, result.stderr + result.stdout.slice(-2000)).toBe(0)
    // Kept as the user gave it.
    expect(readFileSync(join(w.project.path, '.ralph/attachments/task-1/screen.png')).equals(big)).toBe(true)

    const calls = modelCalls(w.server, c)
    expect(calls.length).toBe(3)
    const [sent, read] = wireImages(c.provider, calls[2]!.body)
    expect(sent!.mediaType).toBe('image/png')
    const meta = await sharp(Buffer.from(sent!.base64, 'base64')).metadata()
    expect(meta.format).toBe('png')
    expect(LIMITS[c.provider as keyof typeof LIMITS](meta.width, meta.height)).toBe(true)
    expect(Math.max(meta.width, meta.height)).toBeGreaterThan(1000)
    expect(meta.width / meta.height).toBeCloseTo(4 / 3, 2)
    // The same fitted image in every iteration step.
    expect(wireImages(c.provider, calls[1]!.body)).toEqual([sent])
    // An image within the limits goes as it is, byte for byte.
    expect(read).toEqual({ mediaType: 'image/png', base64: small.toString('base64') })
  })
})

describe('a damaged image', { timeout: 120_000 }, () => {
  it('is refused when attached (exit 2), naming it and saying what to do', async () => {
    const c = PROVIDERS.find((p) => p.provider === 'anthropic')!
    const server = await c.start()
    const project = makeTempDir('ralph-images-fit-')
    const home = makeTempDir('ralph-home-')
    try {
      const whole = await sharp({ create: { width: 300, height: 200, channels: 3, background: '#884422' } })
        .png()
        .toBuffer()
      const cut = join(home.path, 'cut.png')
      writeFileSync(cut, whole.subarray(0, Math.floor(whole.length / 2)))
      const r = await runCli(['run', 'fix it', '--image', cut, '--project', project.path], {
        env: providerEnv(c, server, home.path),
      })
      expect(r.code).toBe(2)
      expect(r.stderr).toMatch(
        /cut\.png could not be read as an image \(.+\): the file is damaged or cut short/,
      )
      expect(server.requests).toEqual([])
    } finally {
      await server.close()
      project.cleanup()
      home.cleanup()
    }
  })
})

describe('a damaged image through the contract', { timeout: 60_000 }, () => {
  it('answers chat.send and tasks.start with the reason, and nothing starts', async () => {
    const home = makeTempDir('ralph-home-')
    const work = makeTempDir()
    const core = createCore({ appDataDir: home.path, env: {}, host: { kind: 'web', openedFrom: 'test' } })
    try {
      const dir = join(work.path, 'app')
      mkdirSync(dir)
      const opened = await core.dispatch('projects.open', { path: dir })
      const projectId = (opened as { ok: true; value: { id: number } }).value.id
      const whole = await sharp({ create: { width: 300, height: 200, channels: 3, background: '#224488' } })
        .png()
        .toBuffer()
      const attachments = [
        {
          name: 'mockup.png',
          mediaType: 'image/png',
          base64: whole.subarray(0, Math.floor(whole.length / 2)).toString('base64'),
        },
      ]
      for (const [name, input] of [
        ['chat.send', { projectId, mode: 'task', text: 'match the mockup', attachments }],
        ['tasks.start', { projectId, message: 'match the mockup', attachments }],
      ] as const) {
        const r = await core.dispatch(name, input)
        expect(r).toMatchObject({
          ok: false,
          error: {
            kind: 'invalid-input',
            message: expect.stringMatching(
              /^mockup\.png could not be read as an image .*damaged or cut short/,
            ),
          },
        })
      }
      const running = await core.dispatch('tasks.running', { projectId })
      expect(running).toMatchObject({ ok: true, value: { running: false } })
    } finally {
      await core.close()
      home.cleanup()
      work.cleanup()
    }
  })
})
