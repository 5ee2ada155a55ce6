import { spawn } from 'node:child_process'
import { afterEach, describe, expect, it } from 'vitest'
import { makeTempDir } from '../helpers/tempDir'

// `npm start` where the desktop app cannot run: one line saying why, then the web host and its URL.
describe('npm start without a display', { timeout: 120_000 }, () => {
  const cleanups: (() => void)[] = []
  afterEach(() => {
    for (const c of cleanups.splice(0)) c()
  })

  it('says why in one line, starts the web host and prints a URL that serves the app', async () => {
    const home = makeTempDir('ralph-home-')
    cleanups.push(home.cleanup)
    const child = spawn('npm', ['start', '--silent', '--', '--port', '0'], {
      env: { ...process.env, RALPH_HOME: home.path, DISPLAY: '', WAYLAND_DISPLAY: '' },
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    cleanups.push(() => {
      try {
        process.kill(-child.pid!, 'SIGTERM')
      } catch {
        // Already gone.
      }
    })
    let out = ''
    let err = ''
    child.stderr.on('data', (c: Buffer) => (err += c.toString()))
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (c: Buffer) => {
        out += c.toString()
        const match = /(http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]+)/.exec(out)
        if (match) resolve(match[1]!)
      })
      child.on('exit', (code) => reject(new Error(`npm start exited with ${code}:\n${out}\n${err}`)))
    })
    expect(err).toContain(
      'Ralph Studio cannot open the desktop app here: there is no display (neither DISPLAY nor WAYLAND_DISPLAY is set). Starting the web host instead.',
    )
    // The token in a header: the URL's query form is for browsers (it is traded for a cookie by a redirect).
    const { origin, searchParams } = new URL(url)
    const page = await fetch(`${origin}/`, { headers: { 'x-ralph-token': searchParams.get('token')! } })
    expect(page.status).toBe(200)
    expect(await page.text()).toContain('<div id="root">')
  })
})
