import { AppError } from '../../shared/errors'
import type { ShadowGit } from './git'

export interface Blob {
  sha: string
  data: Buffer
}

/**
 * Streams blob contents from one `git cat-file --batch`, in request order. The consumer's pace is the
 * stream's pace (async iteration pauses the pipe), so memory holds about one blob at a time even when a
 * rollback rewrites thousands of files.
 */
export async function* readBlobs(git: ShadowGit, shas: string[]): AsyncGenerator<Blob> {
  if (shas.length === 0) return
  const child = git.spawn(['cat-file', '--batch'])
  let stderr = ''
  let spawnError: Error | null = null
  child.on('error', (err) => (spawnError = err))
  child.stderr.on('data', (b: Buffer) => (stderr += b.toString('utf8')))
  child.stdin.on('error', () => {}) // an early exit is reported below
  child.stdin.end(shas.join('\n') + '\n')

  let pending: Buffer = Buffer.alloc(0)
  let next = 0
  let body: { sha: string; size: number; parts: Buffer[]; have: number } | null = null
  try {
    for await (const chunk of child.stdout as AsyncIterable<Buffer>) {
      pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk])
      for (;;) {
        if (body === null) {
          const nl = pending.indexOf(10)
          if (nl === -1) break
          const header = pending.toString('utf8', 0, nl)
          pending = pending.subarray(nl + 1)
          body = parseHeader(header, shas[next] ?? '')
          continue
        }
        const want = body.size + 1 - body.have // content plus git's trailing newline
        const take = Math.min(want, pending.length)
        if (take === 0) break
        body.parts.push(pending.subarray(0, take))
        body.have += take
        pending = pending.subarray(take)
        if (body.have < body.size + 1) break
        const data = Buffer.concat(body.parts).subarray(0, body.size)
        const done = body
        body = null
        next++
        yield { sha: done.sha, data }
      }
    }
  } finally {
    if (child.exitCode === null) child.kill()
  }
  if (spawnError) throw new AppError('git', `Could not run git: ${(spawnError as Error).message}`)
  if (next < shas.length) {
    throw new AppError(
      'git',
      `git cat-file stopped after ${next} of ${shas.length} files${stderr ? `: ${stderr.trim()}` : ''}`,
    )
  }
}

function parseHeader(
  header: string,
  requested: string,
): { sha: string; size: number; parts: Buffer[]; have: number } {
  const m = /^([0-9a-f]{40,64}) blob (\d+)$/.exec(header)
  if (!m) {
    throw new AppError(
      'git',
      `The snapshot store has no readable content for object ${requested} (${header}). ` +
        'Run "ralph snapshot status" to let it check and repair the store.',
    )
  }
  return { sha: m[1]!, size: Number(m[2]), parts: [], have: 0 }
}
