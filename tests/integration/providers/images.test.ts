// Images through each provider's own wire format (issue 27): `ralph run --image` in a child process, the product's
// real AI SDK clients over real HTTP to the fakes, and the recorded request bodies read in each service's format.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { runCli } from '../../helpers/cli'
import { solidPng } from '../../helpers/png'
import { makeTempDir } from '../../helpers/tempDir'
import { ndjson } from '../build/buildCliFixture'
import { parsed, tools } from '../loop/harness'
import { modelCalls, PROVIDERS, useWireProject } from './wire'
import { visionCase, wireImages } from './wireImages'

const MOCKUP = solidPng(1, 1, [255, 0, 0, 255])
const READ = solidPng(2, 1, [0, 0, 255, 255])

describe.each(PROVIDERS.map(visionCase))('images through $provider', { timeout: 180_000 }, (c) => {
  const w = useWireProject(c, 'ralph-images-')
  let files: ReturnType<typeof makeTempDir>
  beforeEach(() => {
    files = makeTempDir('ralph-image-files-')
  })
  afterEach(() => files.cleanup())

  it('ralph run --image: every iteration step carries the image in this format, read_file adds its own, and a rollback keeps it', async () => {
    const image = join(files.path, 'broken screen.png')
    writeFileSync(image, MOCKUP)
    mkdirSync(join(w.project.path, 'design'))
    writeFileSync(join(w.project.path, 'design/read-me.png'), READ)
    w.server.enqueue(
      parsed({ type: 'bugfix', title: 'Fix the header' }),
      tools(['read_file', { path: 'design/read-me.png' }]),
      tools(
        ['write_file', { path: 'header.txt', content: 'fixed' }],
        ['mark_complete', { summary: 'Fixed the header as in the screenshot.' }],
      ),
    )
    const result = await runCli(
      [
        'run',
        'the header is broken, see the screenshot',
        '--image',
        image,
        '--json',
        '--project',
        w.project.path,
      ],
      { env: w.env },
    )
    expect(result.code, result.stderr + result.stdout.slice(-2000)).toBe(0)
    expect(result.stderr).toBe('')
    const stored = join(w.project.path, '.ralph/attachments/task-1/broken-screen.png')
    expect(readFileSync(stored).equals(MOCKUP)).toBe(true)

    const calls = modelCalls(w.server, c)
    expect(calls.map((r) => r.status)).toEqual([200, 200, 200])
    // The parse is text only; each iteration step sends the attachment, the step after read_file its image too.
    expect(wireImages(c.provider, calls[0]!.body)).toEqual([])
    const mediaType = c.provider === 'ollama' ? null : 'image/png'
    const attached = { mediaType, base64: MOCKUP.toString('base64') }
    expect(wireImages(c.provider, calls[1]!.body)).toEqual([attached])
    expect(wireImages(c.provider, calls[2]!.body)).toEqual([
      attached,
      { mediaType, base64: READ.toString('base64') },
    ])
    expect(JSON.stringify(calls[1]!.body)).toContain(
      'The user attached 1 image(s) to this task: broken-screen.png.',
    )
    expect(JSON.stringify(calls[2]!.body)).toContain('The image(s) read_file returned: design/read-me.png.')

    // Rolling the task back keeps its images: they are in task-1-pre.
    const back = await runCli(['snapshot', 'rollback', 'task-1-pre', '--json', '--project', w.project.path], {
      env: w.env,
    })
    expect(back.code, back.stderr + back.stdout).toBe(0)
    expect(existsSync(join(w.project.path, 'header.txt'))).toBe(false)
    expect(readFileSync(stored).equals(MOCKUP)).toBe(true)
  })
})

describe('images and a model that cannot see them', { timeout: 180_000 }, () => {
  const c = PROVIDERS.find((p) => p.provider === 'openai')!
  const w = useWireProject(c, 'ralph-images-')

  it('warns before the task, and the task goes on with a note instead of the image', async () => {
    const image = join(w.home.path, 'mock.png')
    writeFileSync(image, MOCKUP)
    w.server.enqueue(
      parsed({ type: 'bugfix', title: 'Fix the header' }),
      tools(
        ['write_file', { path: 'header.txt', content: 'fixed' }],
        ['mark_complete', { summary: 'Fixed the header.' }],
      ),
    )
    // o3-mini: the catalog lists its input as text only.
    const env = { ...w.env, RALPH_MODEL: 'o3-mini' }
    const result = await runCli(
      ['run', 'fix the header', '--image', image, '--json', '--project', w.project.path],
      { env },
    )
    expect(result.code, result.stderr + result.stdout.slice(-2000)).toBe(0)
    expect(result.stderr).toContain('o3-mini cannot see images; the task goes on with a note')
    const calls = modelCalls(w.server, c)
    expect(calls.every((r) => wireImages('openai', r.body).length === 0)).toBe(true)
    expect(JSON.stringify(calls[1]!.body)).toContain(
      'The user attached 1 image(s): mock.png; this model cannot see images',
    )
    expect(ndjson<{ type: string }>(result.stdout).at(-1)?.type).toBe('task.completed')
  })

  it('refuses a text file named .png and an image over 5 MB before anything starts (exit 2), saying what to do', async () => {
    const env = w.env
    const fake = join(w.home.path, 'fake.png')
    writeFileSync(fake, 'this is text\n')
    const bad = await runCli(['run', 'fix it', '--image', fake, '--project', w.project.path], { env })
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain('fake.png is not a PNG, JPEG, WebP or GIF image')
    const big = join(w.home.path, 'big.png')
    writeFileSync(big, Buffer.concat([MOCKUP, Buffer.alloc(6 * 1024 * 1024)]))
    const tooBig = await runCli(['run', 'fix it', '--image', big, '--project', w.project.path], { env })
    expect(tooBig.code).toBe(2)
    expect(tooBig.stderr).toContain('big.png is 6.0 MB; an attached image may be at most 5.0 MB')
    // A resumed task keeps the images it has.
    const resumed = await runCli(['run', '--resume', '--image', fake, '--project', w.project.path], { env })
    expect(resumed.code).toBe(2)
    expect(resumed.stderr).toContain('--resume continues a task with the images it has: leave --image out.')
    expect(w.server.requests).toEqual([])
    expect(existsSync(join(w.project.path, '.ralph'))).toBe(false)
  })
})

describe('images and an Ollama model without vision', { timeout: 180_000 }, () => {
  const c = PROVIDERS.find((p) => p.provider === 'ollama')!
  const w = useWireProject(c, 'ralph-images-')

  it('asks the server (/api/show lists no vision), warns, and sends the note instead of `images`', async () => {
    const image = join(w.home.path, 'mock.png')
    writeFileSync(image, MOCKUP)
    w.server.enqueue(
      parsed({ type: 'bugfix', title: 'Fix the header' }),
      tools(
        ['write_file', { path: 'header.txt', content: 'fixed' }],
        ['mark_complete', { summary: 'Fixed.' }],
      ),
    )
    const env = w.env // llama3.1: capabilities completion, tools
    const result = await runCli(
      ['run', 'fix the header', '--image', image, '--json', '--project', w.project.path],
      {
        env,
      },
    )
    expect(result.code, result.stderr + result.stdout.slice(-2000)).toBe(0)
    expect(result.stderr).toContain('llama3.1 cannot see images; the task goes on with a note')
    const calls = modelCalls(w.server, c)
    expect(calls.every((r) => wireImages('ollama', r.body).length === 0)).toBe(true)
    expect(JSON.stringify(calls[1]!.body)).toContain(
      'The user attached 1 image(s): mock.png; this model cannot see images',
    )
  })
})
