import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { EventEnvelope } from '../../src/shared/api/contract'
import { makeCore } from './core'
import { makeTempDir } from './tempDir'

/** A real core with one project open, as the Queue panel sees it. */
export interface QueueProject {
  core: ReturnType<typeof makeCore>['core']
  /** The project folder (a `spec.md` is written in it). */
  dir: string
  projectId: number
  /** Every event the core sent since it opened (empty it with `seen.length = 0`). */
  seen: EventEnvelope[]
  /** Dispatches a call; a refusal is thrown as an Error carrying the core's `kind`. */
  call<T = unknown>(name: string, input: unknown): Promise<T>
  /** Closes the core (once, however often called) and removes both temp folders. */
  close(): Promise<void>
}

/**
 * Real SQLite, real files, the real history ref: the Queue API tests' setup. `env` reaches the core (a provider);
 * `files` are written into the project, beside spec.md, before it is opened.
 */
export async function openQueueProject(
  options: { env?: NodeJS.ProcessEnv; files?: Record<string, string> } = {},
): Promise<QueueProject> {
  const made = makeCore(options.env)
  const work = makeTempDir('ralph-work-')
  const files = { 'spec.md': '# Spec\n', ...options.files }
  for (const [name, content] of Object.entries(files)) writeFileSync(join(work.path, name), content)
  const seen: EventEnvelope[] = []
  made.core.events.subscribe((e) => seen.push(e))
  const call = async <T = unknown>(name: string, input: unknown): Promise<T> => {
    const result = await made.core.dispatch(name, input)
    if (!result.ok) throw Object.assign(new Error(result.error.message), { kind: result.error.kind })
    return result.value as T
  }
  let closing: Promise<void> | null = null
  const projectId = (await call<{ id: number }>('projects.open', { path: work.path })).id
  return {
    core: made.core,
    dir: work.path,
    projectId,
    seen,
    call,
    close: () => (closing ??= made.cleanup().then(() => work.cleanup())),
  }
}
