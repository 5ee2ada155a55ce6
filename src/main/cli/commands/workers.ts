// `ralph workers test|clean` (issue #39, DESIGN.md §18): checks the backend that runs lanes elsewhere — reaches the
// Docker engine DOCKER_HOST names, finds the image, runs a no-op job through it — and says what is wrong in one
// sentence; `clean` removes the containers failed jobs left on the engine.
import { formatDuration } from '../../../shared/format'
import { cleanKeptContainers } from '../../workers/docker'
import { checkDockerWorkers, type DockerCheck } from '../../workers/dockerCheck'
import { DEFAULT_WORKER_IMAGE, readWorkersConfig, type WorkersConfig } from '../../workers/config'
import { connectDocker } from '../../workers/dockerClient'
import { checkKubernetesWorkers, type KubernetesCheck } from '../../workers/kubernetesCheck'
import { connectKube } from '../../workers/kubernetesClient'
import { expectAction, expectPositionals, stringFlag, usageError } from '../args'
import { writeJson } from '../output'
import { ExitCode, type CliCommand, type CliContext } from '../types'

const usage = `Usage: ralph workers test [--workers docker|kubernetes|local] [--image IMAGE] [--json]
       ralph workers test --workers kubernetes [--context NAME] [--namespace NS] [--image IMAGE] [--json]
       ralph workers clean [--json]

  test    checks the backend that runs a build's lanes: for docker, reaches the engine, finds the image and runs a
          no-op job in it (the job's files in, a result out, the container removed); says what is wrong in one
          sentence
  clean   removes the containers that failed jobs left on the Docker engine (kept for a look, labelled as Ralph's)

  --workers docker|kubernetes|local   the backend to check (default: the project's, else docker)
  --context NAME           kubernetes: the kubeconfig's context (default: the project's, else its current one)
  --namespace NS           kubernetes: the namespace jobs run in (default: the project's, else the context's, else
                           "default")
  --image IMAGE            the worker image (default: $RALPH_WORKER_IMAGE, else the project's, else
                           ${DEFAULT_WORKER_IMAGE}, which npm run worker:image builds from docker/worker.Dockerfile)

In a project (--project DIR, default the current folder) the check uses its "workers" settings in
.ralph/config.json (Settings → Workers) where no flag says otherwise: the backend, the image, "dockerHost" and the
Kubernetes context and namespace.

The Docker engine is the project's "dockerHost", else the one DOCKER_HOST names, as for the docker CLI: unset (the
local socket), unix:///PATH (Podman's service: podman system service), tcp://HOST:PORT (TLS with DOCKER_TLS_VERIFY=1
and DOCKER_CERT_PATH), or ssh://USER@HOST (the remote docker CLI answers over ssh; keys from SSH_AUTH_SOCK).

Kubernetes (experimental: it has not yet run on a real cluster) reads the kubeconfig as kubectl does (KUBECONFIG or
~/.kube/config); the check reaches the API, then runs a no-op job as a batch/v1 Job with its own Secret in the
namespace (both deleted after). The image must be one the cluster's nodes can pull.
Exit codes: 0 ready, 2 usage, 4 the no-op job failed, 5 the engine or cluster cannot be reached or the image is
missing.`

const options = {
  workers: { type: 'string' },
  image: { type: 'string' },
  context: { type: 'string' },
  namespace: { type: 'string' },
} as const

const BACKENDS = ['docker', 'kubernetes', 'local'] as const

function exitFor(check: DockerCheck | KubernetesCheck): number {
  if (check.ok) return ExitCode.ok
  return check.failed === 'job' ? ExitCode.taskFailed : ExitCode.config
}

function report(check: DockerCheck): string {
  const lines: string[] = []
  if (check.engine)
    lines.push(
      `✓ ${check.engine.name} ${check.engine.version} (API ${check.engine.apiVersion}) at ${check.where.replace(/^docker: /, '')}`,
    )
  if (check.image)
    lines.push(
      `✓ Image ${check.image.name} (${check.image.id.replace(/^sha256:/, '').slice(0, 12)}, ${Math.round(check.image.sizeBytes / 1e6)} MB)`,
    )
  if (check.job) {
    const ralph = check.job.ralph ? `, ralph ${check.job.ralph}` : ''
    lines.push(
      `✓ No-op job: node ${check.job.node}, git ${check.job.git}${ralph}; files in and out; ${formatDuration(check.job.durationMs)}`,
    )
    if (!check.job.ralph)
      lines.push(
        '! The image has no ralph CLI on its PATH: a build needs it to run jobs (docker/worker.Dockerfile installs it).',
      )
  }
  lines.push(check.ok ? 'Docker workers are ready.' : `✗ ${check.problem}`)
  return lines.join('\n') + '\n'
}

async function test(ctx: CliContext): Promise<number> {
  const config = await readWorkersConfig(ctx.projectDir)
  const backend =
    stringFlag(ctx.values, 'workers') ?? (config.backend === 'local' ? 'docker' : config.backend)
  if (!(BACKENDS as readonly string[]).includes(backend))
    throw usageError('workers', `--workers must be docker, kubernetes or local, not "${backend}".`)
  if (backend === 'local') {
    if (ctx.json) writeJson(ctx.stdout, { ok: true, workers: 'local' })
    else ctx.stdout.write('Local workers are the lanes on this machine: nothing to reach.\n')
    return ExitCode.ok
  }
  const image = stringFlag(ctx.values, 'image') ?? (ctx.env.RALPH_WORKER_IMAGE || config.image)
  if (backend === 'kubernetes') return testKubernetes(ctx, image, config)
  const conn = connectDocker(ctx.env, config.dockerHost)
  const check = await checkDockerWorkers(conn, image, ctx.signal, ctx.logger)
  if (ctx.json) writeJson(ctx.stdout, { workers: 'docker', ...check })
  else ctx.stdout.write(report(check))
  return exitFor(check)
}

function kubeReport(check: KubernetesCheck): string {
  const lines = ['Kubernetes workers are experimental: they have not yet run on a real cluster.']
  if (check.cluster)
    lines.push(
      `✓ Kubernetes ${check.cluster.version} at ${check.server} (${check.where.replace(/^k8s: /, '')})`,
    )
  if (check.job) {
    const ralph = check.job.ralph ? `, ralph ${check.job.ralph}` : ''
    lines.push(
      `✓ No-op job: a Job and its Secret created and deleted; node ${check.job.node}, git ${check.job.git}${ralph}; ${formatDuration(check.job.durationMs)}`,
    )
    if (!check.job.ralph)
      lines.push(
        '! The image has no ralph CLI on its PATH: a build needs it to run jobs (docker/worker.Dockerfile installs it).',
      )
  }
  lines.push(check.ok ? 'Kubernetes workers are ready.' : `✗ ${check.problem}`)
  return lines.join('\n') + '\n'
}

async function testKubernetes(ctx: CliContext, image: string, config: WorkersConfig): Promise<number> {
  const context = stringFlag(ctx.values, 'context') ?? config.kubernetes.context
  const namespace = stringFlag(ctx.values, 'namespace') ?? config.kubernetes.namespace
  const conn = connectKube({
    ...(context ? { context } : {}),
    ...(namespace ? { namespace } : {}),
  })
  const check = await checkKubernetesWorkers(conn, image, ctx.signal, ctx.logger)
  if (ctx.json) writeJson(ctx.stdout, { workers: 'kubernetes', experimental: true, ...check })
  else ctx.stdout.write(kubeReport(check))
  return exitFor(check)
}

async function clean(ctx: CliContext): Promise<number> {
  const conn = connectDocker(ctx.env, (await readWorkersConfig(ctx.projectDir)).dockerHost)
  const removed = await cleanKeptContainers(conn)
  if (ctx.json) writeJson(ctx.stdout, { ok: true, where: conn.target.label, removed })
  else
    ctx.stdout.write(
      removed.length === 0
        ? `No containers left by jobs on ${conn.target.label.replace(/^docker: /, '')}.\n`
        : `Removed ${removed.length} container${removed.length === 1 ? '' : 's'} left by jobs: ${removed.map((id) => id.slice(0, 12)).join(', ')}\n`,
    )
  return ExitCode.ok
}

export const workersCommand: CliCommand = {
  name: 'workers',
  usage,
  options,
  async run(ctx) {
    const [action = 'test'] = ctx.positionals
    expectPositionals(ctx.positionals, 0, 1, 'workers [test|clean]', 'workers')
    expectAction(action, ['test', 'clean'], 'workers')
    return action === 'clean' ? clean(ctx) : test(ctx)
  },
}
