import type Docker from 'dockerode'

/** The label on every container a job makes: what `cleanKeptContainers` looks for. */
export const WORKER_LABEL = 'dev.ralph-studio.worker'

export interface ContainerLimits {
  /** CPUs the container may use (1.5 = one and a half cores). */
  cpus?: number
  memoryBytes?: number
  /** Processes and threads in the container. */
  pids?: number
  /** The job is killed when it runs longer (kept on the engine as a failure). */
  wallTimeMs: number
}

/** What `containerSpec` needs of a job. */
export interface ContainerSpecInput {
  image: string
  command: string[]
  env?: Record<string, string>
  limits: ContainerLimits
  network?: string
  workdir?: string
  labels?: Record<string, string>
}

/** The Docker Engine API's create body for a job: its limits in HostConfig, no TTY (stdout and stderr apart). */
export function containerSpec(job: ContainerSpecInput): Docker.ContainerCreateOptions {
  const { cpus, memoryBytes, pids } = job.limits
  const hostConfig: Docker.HostConfig = {
    AutoRemove: false,
    ...(job.network ? { NetworkMode: job.network } : {}),
    ...(cpus !== undefined ? { NanoCpus: Math.round(cpus * 1e9) } : {}),
    // No swap beyond the memory limit: a job over it is stopped rather than slowed.
    ...(memoryBytes !== undefined ? { Memory: memoryBytes, MemorySwap: memoryBytes } : {}),
    ...(pids !== undefined ? { PidsLimit: pids } : {}),
  }
  return {
    Image: job.image,
    Cmd: job.command,
    Env: Object.entries(job.env ?? {}).map(([k, v]) => `${k}=${v}`),
    ...(job.workdir ? { WorkingDir: job.workdir } : {}),
    Labels: { ...job.labels, [WORKER_LABEL]: '1' },
    Tty: false,
    AttachStdout: true,
    AttachStderr: true,
    OpenStdin: false,
    HostConfig: hostConfig,
  }
}
