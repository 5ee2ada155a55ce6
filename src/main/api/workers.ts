// Settings → Workers (issue #39, DESIGN.md §18): a project's "workers" in `.ralph/config.json`, and the check of a
// backend `ralph workers test` runs (the same functions), stoppable, its outcome in one sentence.
import type { WorkersCheck, workersCalls, WorkersSettings } from '../../shared/api/workers'
import { AppError, isAppError } from '../../shared/errors'
import { formatDuration } from '../../shared/format'
import { defaultWorkersConfig, workersConfigSchema, type WorkersConfig } from '../../shared/workersConfig'
import { readWorkersConfig } from '../workers'
import { editProjectConfig, type Logger } from '../workspace'
import type { Handlers } from './types'

export interface WorkersDeps {
  /** The vault's named secrets (names only). */
  secretNames(): string[]
  /** The host's environment: DOCKER_HOST and the rest, as `ralph workers test` reads its own. */
  env: NodeJS.ProcessEnv
  logger: Logger
}

async function settings(projectDir: string, deps: WorkersDeps): Promise<WorkersSettings> {
  const secretNames = deps.secretNames()
  try {
    return { config: await readWorkersConfig(projectDir), problem: null, secretNames }
  } catch (err) {
    if (!isAppError(err, 'config')) throw err
    return { config: defaultWorkersConfig, problem: err.message, secretNames }
  }
}

/**
 * A check's message as its first sentence and the rest (what to do). Sentences end at a full stop before a capital
 * letter, so the dots of an address (127.0.0.1, docker.sock) do not split one.
 */
export function firstSentence(message: string): { summary: string; advice: string | null } {
  const end = /[.!?]\s+(?=[A-Z`])/.exec(message)
  if (!end) return { summary: message.trim(), advice: null }
  return {
    summary: message.slice(0, end.index + 1).trim(),
    advice: message.slice(end.index + end[0].length).trim() || null,
  }
}

/** Runs the backend's check; what is wrong comes back in the result, a stop as `stopped`. */
export async function checkWorkers(
  config: WorkersConfig,
  env: NodeJS.ProcessEnv,
  signal: AbortSignal,
  log: Logger,
): Promise<WorkersCheck> {
  const started = Date.now()
  const result = (
    r: Omit<WorkersCheck, 'backend' | 'durationMs' | 'stopped' | 'advice'>,
    stopped = false,
  ): WorkersCheck => ({
    backend: config.backend,
    stopped,
    durationMs: Date.now() - started,
    ...r,
    ...firstSentence(r.summary),
  })
  try {
    switch (config.backend) {
      case 'local':
        return result({
          ok: true,
          where: 'local',
          summary: 'Local workers are the lanes on this machine: nothing to reach.',
        })
      case 'docker': {
        // Loaded when used, as in `ralph workers test`: the Docker client stays out of the app's start.
        const [{ connectDocker }, { checkDockerWorkers }] = await Promise.all([
          import('../workers/dockerClient'),
          import('../workers/dockerCheck'),
        ])
        const check = await checkDockerWorkers(
          connectDocker(env, config.dockerHost),
          config.image,
          signal,
          log,
        )
        if (!check.ok)
          return result({ ok: false, where: check.where, summary: check.problem ?? 'The check failed.' })
        const ran = `${check.engine!.name} ${check.engine!.version} at ${check.where.replace(/^docker: /, '')} ran a no-op job in ${config.image} in ${formatDuration(check.job!.durationMs)}`
        // The check's job needs only node and git; a build's job needs the ralph CLI too.
        return check.job!.ralph === null
          ? result({
              ok: false,
              where: check.where,
              summary: `${ran}, but the image has no ralph CLI on its PATH, which a build needs (docker/worker.Dockerfile installs it).`,
            })
          : result({ ok: true, where: check.where, summary: `Docker workers are ready: ${ran}.` })
      }
      case 'kubernetes': {
        // @kubernetes/client-node takes a second to load: only when a check needs it.
        const [{ connectKube }, { checkKubernetesWorkers }] = await Promise.all([
          import('../workers/kubernetesClient'),
          import('../workers/kubernetesCheck'),
        ])
        const { context, namespace } = config.kubernetes
        const conn = connectKube({ ...(context ? { context } : {}), ...(namespace ? { namespace } : {}) })
        const check = await checkKubernetesWorkers(conn, config.image, signal, log)
        const summary = check.ok
          ? `Kubernetes workers are ready: ${check.cluster!.version} at ${check.server} ran a no-op job in ` +
            `${config.image} in ${formatDuration(check.job!.durationMs)}.`
          : (check.problem ?? 'The check failed.')
        return result({ ok: check.ok, where: check.where, summary })
      }
    }
  } catch (err) {
    if (isAppError(err, 'cancelled') || signal.aborted)
      return result({ ok: false, where: null, summary: 'The check was stopped.' }, true)
    // A setting the backend cannot use (a DOCKER_HOST it cannot parse, a missing kubeconfig): its one sentence.
    if (isAppError(err, 'config') || isAppError(err, 'not-found'))
      return result({ ok: false, where: null, summary: err.message })
    throw err
  }
}

/** Settings → Workers: read, write (only the "workers" field), and check a backend. */
export function workersHandlers(deps: WorkersDeps): Handlers<typeof workersCalls> {
  const checks = new Map<number, AbortController>()
  return {
    'workers.get': async ({ projectId }, ctx) => settings(ctx.resolveProject(projectId).path, deps),
    'workers.set': async ({ projectId, workers }, ctx) => {
      const projectDir = ctx.resolveProject(projectId).path
      // The input was checked against the schema already; the file keeps every other key as it was.
      await editProjectConfig(projectDir, 'workers', () => workersConfigSchema.parse(workers))
      ctx.emit('settings.changed', { key: `workers:${projectId}` })
      return settings(projectDir, deps)
    },
    'workers.test': async ({ projectId, workers }, ctx) => {
      ctx.resolveProject(projectId)
      if (checks.has(projectId))
        throw new AppError(
          'busy',
          'A check of this project’s workers is already running: wait for it or stop it.',
        )
      const controller = new AbortController()
      checks.set(projectId, controller)
      try {
        return await checkWorkers(workers, deps.env, controller.signal, deps.logger)
      } finally {
        checks.delete(projectId)
      }
    },
    'workers.stopTest': async ({ projectId }) => {
      const controller = checks.get(projectId)
      controller?.abort()
      return { stopped: controller !== undefined }
    },
  }
}
