import { spawn, type ChildProcess } from 'node:child_process'
import { connect } from 'node:net'
import { fileURLToPath } from 'node:url'

const repoRoot = fileURLToPath(new URL('../..', import.meta.url))

export interface WebHost {
  url: string
  origin: string
  token: string
  port: number
  output: () => string
  /** False once the host process has exited (a crash, say). */
  running: () => boolean
  stop(): Promise<void>
}

/** One contract call as a script makes it: the token in a header, JSON in and out. */
export async function callApi(
  host: WebHost,
  name: string,
  input: unknown,
): Promise<{ ok: boolean; value: Record<string, unknown>; error?: { kind: string; message: string } }> {
  const res = await fetch(`${host.origin}/api/call/${name}`, {
    method: 'POST',
    headers: { 'x-ralph-token': host.token, 'content-type': 'application/json' },
    body: JSON.stringify(input),
  })
  return (await res.json()) as { ok: boolean; value: Record<string, unknown> }
}

/**
 * Starts the real `npm run web` (port 0 = a free one) and waits for the URL it prints. `launch: 'node'` runs its
 * script without npm, whose PATH always starts with node_modules/.bin: the host's PATH is then exactly `env.PATH`.
 */
export async function startWebHost(
  env: NodeJS.ProcessEnv,
  port = 0,
  launch: 'npm' | 'node' = 'npm',
): Promise<WebHost> {
  const [command, ...args] =
    launch === 'npm'
      ? ['npm', 'run', 'web', '--silent', '--', '--port', String(port)]
      : [process.execPath, 'scripts/web.mjs', '--port', String(port)]
  const child: ChildProcess = spawn(command!, args, {
    cwd: repoRoot,
    env: { ...process.env, ...env },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  const url = await new Promise<string>((resolve, reject) => {
    // Waited for, not slept: the room is for a 2-core machine running several test files (and a second run) at once.
    const timer = setTimeout(() => reject(new Error(`web host did not start:\n${output}`)), 100_000)
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
    running: () => child.exitCode === null && child.signalCode === null,
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

/** A raw TCP connection, for bytes no well-behaved HTTP or WebSocket client would send. */
export interface RawConnection {
  write(bytes: string | Buffer): void
  /** Everything the server sent so far. */
  received(): Buffer
  /** Resolves with what was received once `done` holds for it (or the server closed), rejects after `ms`. */
  waitFor(done: (received: Buffer) => boolean, ms?: number): Promise<Buffer>
  closed(): boolean
  destroy(): void
}

export function rawConnect(port: number): Promise<RawConnection> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1')
    let received = Buffer.alloc(0)
    let isClosed = false
    const waiters = new Set<() => void>()
    const wake = () => waiters.forEach((w) => w())
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk])
      wake()
    })
    // A reset from the server is an outcome the tests look at, not a test failure.
    socket.on('error', () => undefined)
    socket.on('close', () => {
      isClosed = true
      wake()
    })
    socket.once('connect', () =>
      resolve({
        write: (bytes) => void socket.write(bytes),
        received: () => received,
        closed: () => isClosed,
        destroy: () => socket.destroy(),
        waitFor: (done, ms = 20_000) =>
          new Promise((ok, fail) => {
            const check = () => {
              if (!done(received) && !isClosed) return
              clearTimeout(timer)
              waiters.delete(check)
              ok(received)
            }
            const timer = setTimeout(() => {
              waiters.delete(check)
              fail(new Error(`timed out; received: ${JSON.stringify(received.toString('latin1'))}`))
            }, ms)
            waiters.add(check)
            check()
          }),
      }),
    )
    socket.once('error', reject)
  })
}

/** The opening handshake of a WebSocket on /api/events, authenticated by the token header. */
export function upgradeRequest(port: number, token: string): string {
  return [
    'GET /api/events HTTP/1.1',
    `Host: 127.0.0.1:${port}`,
    'Upgrade: websocket',
    'Connection: Upgrade',
    'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==',
    'Sec-WebSocket-Version: 13',
    `x-ralph-token: ${token}`,
    '',
    '',
  ].join('\r\n')
}

/** The header of a masked client frame announcing `length` payload bytes (64-bit length form). */
export function maskedFrameHeader(opcode: number, length: number): Buffer {
  const header = Buffer.alloc(14)
  header[0] = 0x80 | opcode
  header[1] = 0x80 | 127
  header.writeBigUInt64BE(BigInt(length), 2)
  header.writeUInt32BE(0x01020304, 10)
  return header
}

/** The close frame a server sends with `code` and no reason (unmasked, two payload bytes). */
export function closeFrame(code: number): Buffer {
  return Buffer.from([0x88, 0x02, code >> 8, code & 0xff])
}

/** Upgrades a raw connection to a WebSocket and waits for the 101. */
export async function rawWebSocket(port: number, token: string): Promise<RawConnection> {
  const conn = await rawConnect(port)
  conn.write(upgradeRequest(port, token))
  const answer = await conn.waitFor((r) => r.includes('\r\n\r\n'))
  if (!answer.toString('latin1').startsWith('HTTP/1.1 101')) {
    throw new Error(`upgrade refused: ${answer.toString('latin1')}`)
  }
  return conn
}
