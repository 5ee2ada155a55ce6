// A recording proxy in front of a Docker engine's unix socket, for `npm run bench:workers`: the build talks to it as
// its DOCKER_HOST, it passes every byte through unchanged and notes when each request began and ended (the engine's
// last byte of it) and how many bytes went each way. So the per-job steps of the Docker runner — create, the job's bundle in,
// start, wait, the result out, remove — are timed from outside, without touching the runner.
import { connect, createServer } from 'node:net'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export interface EngineCall {
  method: string
  /** The path without its API version prefix: /containers/create, /containers/ID/archive … */
  path: string
  /** performance.now() when the request came and when its response ended. */
  start: number
  end: number
  bytesIn: number
  bytesOut: number
  /** The container a create made (its response's Id), with the labels it asked for. */
  created?: { id: string; labels: Record<string, string> }
}

export interface EngineProxy {
  /** unix:///…: what DOCKER_HOST says to reach the proxy. */
  dockerHost: string
  calls: EngineCall[]
  close(): Promise<void>
}

const unversioned = (url: string) => url.replace(/^\/v\d+(\.\d+)?(?=\/)/, '').split('?')[0]!

const REQUEST_LINE = /^(GET|POST|PUT|DELETE|HEAD) (\S+) HTTP\/1\.[01]\r\n/

/**
 * Bytes passed through as they are (an HTTP-level proxy would have to speak the engine's hijacked attach streams):
 * a request begins where the client's bytes start with a request line, and ends with the engine's last byte before
 * the next one on that connection (or its close).
 */
export async function startEngineProxy(upstreamSocket: string): Promise<EngineProxy> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-workers-proxy-'))
  const socket = join(dir, 'docker.sock')
  const calls: EngineCall[] = []
  const server = createServer((client) => {
    const upstream = connect(upstreamSocket)
    let current: (EngineCall & { sent: string; received: string }) | null = null
    const finish = () => {
      if (!current) return
      const call = current
      current = null
      if (call.method === 'POST' && call.path === '/containers/create') {
        const id = /"Id"\s*:\s*"([0-9a-f]+)"/.exec(call.received)?.[1] ?? ''
        const labels = /"Labels"\s*:\s*(\{[^}]*\})/.exec(call.sent)?.[1]
        try {
          call.created = { id, labels: labels ? (JSON.parse(labels) as Record<string, string>) : {} }
        } catch (err) {
          console.error('bench:workers: the labels of a container create could not be read', err)
        }
      }
      const { sent: _s, received: _r, ...done } = call
      calls.push(done)
    }
    client.on('data', (chunk: Buffer) => {
      const line = REQUEST_LINE.exec(chunk.subarray(0, 2048).toString('latin1'))
      if (line) {
        finish()
        current = {
          ...{ method: line[1]!, path: unversioned(line[2]!), start: performance.now(), end: 0 },
          ...{ bytesIn: 0, bytesOut: 0, sent: '', received: '' },
        }
      }
      if (current) {
        current.bytesIn += chunk.length
        if (current.sent.length < 65536) current.sent += chunk.toString('latin1')
      }
      upstream.write(chunk)
    })
    upstream.on('data', (chunk: Buffer) => {
      if (current) {
        current.bytesOut += chunk.length
        current.end = performance.now()
        if (current.received.length < 65536) current.received += chunk.toString('latin1')
      }
      client.write(chunk)
    })
    const close = () => {
      finish()
      client.destroy()
      upstream.destroy()
    }
    client.on('end', () => upstream.end())
    upstream.on('end', () => client.end())
    client.on('close', close)
    upstream.on('close', close)
    client.on('error', close)
    upstream.on('error', close)
  })
  await new Promise<void>((resolve) => server.listen(socket, resolve))
  return {
    dockerHost: `unix://${socket}`,
    calls,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => {
          rmSync(dir, { recursive: true, force: true })
          resolve()
        })
      }),
  }
}
