import { spawn, type ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'

const repoRoot = fileURLToPath(new URL('../..', import.meta.url))

export interface WebHost {
  url: string
  origin: string
  token: string
  port: number
  output: () => string
  stop(): Promise<void>
}

/** Starts the real `npm run web` (port 0 = a free one) and waits for the URL it prints. */
export async function startWebHost(env: NodeJS.ProcessEnv): Promise<WebHost> {
  const child: ChildProcess = spawn('npm', ['run', 'web', '--silent', '--', '--port', '0'], {
    cwd: repoRoot,
    env: { ...process.env, ...env },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`web host did not start:\n${output}`)), 60_000)
    const onData = (chunk: Buffer) => {
      output += chunk.toString()
      const match = /(http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]+)/.exec(output)
      if (match) {
        clearTimeout(timer)
        resolve(match[1]!)
      }
    }
    child.stdout!.on('data', onData)
    child.stderr!.on('data', onData)
    child.on('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`web host exited with ${code}:\n${output}`))
    })
  })
  const parsed = new URL(url)
  return {
    url,
    origin: parsed.origin,
    token: parsed.searchParams.get('token')!,
    port: Number(parsed.port),
    output: () => output,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve()
        child.once('exit', () => resolve())
        try {
          process.kill(-child.pid!, 'SIGTERM')
        } catch {
          resolve()
        }
      }),
  }
}
