// Podman's Docker-compatible service for the Docker-backend tests (DESIGN.md §12): Debian's podman with runc,
// configured through CONTAINERS_CONF / CONTAINERS_STORAGE_CONF / CONTAINERS_REGISTRIES_CONF files of its own (the
// machine's /etc/containers is left alone), its storage in a cache folder so the test image is built once per
// machine, and `podman system service` on a socket of its own per test file.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { createServer, type AddressInfo } from 'node:net'
import { homedir, tmpdir } from 'node:os'
import { join } from 'node:path'
import Docker from 'dockerode'
import { makeTempDir } from './tempDir'

const found = (cmd: string): boolean =>
  spawnSync('sh', ['-c', `command -v ${cmd} || test -x /usr/sbin/${cmd}`]).status === 0

/** Why the Docker-backend tests cannot run here (one line), or null. `.ci/run` installs both, so CI never skips. */
export const podmanSkipReason: string | null =
  process.platform !== 'linux'
    ? 'the Docker-backend tests need Linux (podman with runc)'
    : !found('podman') || !found('runc')
      ? 'podman and runc are not installed (apt-get install -y podman runc; .ci/run does it)'
      : null

/** A hard limit of this process from /proc/self/limits ("Max open files"), or null when unlimited or unknown. */
function hardLimit(name: string): number | null {
  const line = readFileSync('/proc/self/limits', 'utf8')
    .split('\n')
    .find((l) => l.startsWith(name))
  const hard = line?.slice(26).trim().split(/\s+/)[1]
  return hard === undefined || hard === 'unlimited' ? null : Number(hard)
}

const PID_MAX = (): number => Number(readFileSync('/proc/sys/kernel/pid_max', 'utf8').trim())

/**
 * containers.conf for these machines, each line for a reason found here:
 * - runtime = "runc": crun refuses the hybrid cgroup layout (cgroup v1 controllers with a v2 "unified" mount).
 * - cgroup_manager = "cgroupfs": there is no systemd to ask for cgroups.
 * - default_ulimits: without them podman asks runc for nofile and nproc of 1048576, and raising a hard limit needs
 *   CAP_SYS_RESOURCE, which the machine lacks ("error setting rlimit type 7: operation not permitted"). nofile is
 *   this process's hard limit; nproc at most pid_max, the hard limit runc is started with here (higher fails with
 *   "rlimit type 6"). `--ulimit host` and -1 do not help: they ask for more than runc has.
 * - events_logger = "file": no journald.
 */
function containersConf(): string {
  const nofile = Math.min(hardLimit('Max open files') ?? 1048576, 1048576)
  const nproc = Math.min(hardLimit('Max processes') ?? PID_MAX(), PID_MAX())
  return `[containers]
default_ulimits = ["nofile=${nofile}:${nofile}", "nproc=${nproc}:${nproc}"]
log_driver = "k8s-file"

[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "file"
`
}

/** Where the service keeps images: a cache that outlives the test run (the image is built once per machine). */
function storageDir(): string {
  const cache = process.env.XDG_CACHE_HOME || join(homedir(), '.cache')
  return join(cache, 'ralph-studio-tests', 'podman')
}

/** overlay, unless the cache itself is on overlayfs (a CI runner in a container), where only vfs works. */
function storageDriver(dir: string): string {
  const fs = spawnSync('stat', ['-f', '-c', '%T', dir], { encoding: 'utf8' }).stdout.trim()
  return fs === 'overlayfs' ? 'vfs' : 'overlay'
}

function writeConfig(): NodeJS.ProcessEnv {
  const dir = storageDir()
  mkdirSync(dir, { recursive: true })
  const conf = join(dir, 'containers.conf')
  const storage = join(dir, 'storage.conf')
  const registries = join(dir, 'registries.conf')
  writeFileSync(conf, containersConf())
  writeFileSync(
    storage,
    `[storage]\ndriver = "${storageDriver(dir)}"\ngraphroot = "${join(dir, 'root')}"\nrunroot = "${join(tmpdir(), `ralph-podman-run-${process.getuid?.() ?? 0}`)}"\n`,
  )
  // No registry is reachable: no short name is ever looked up anywhere.
  writeFileSync(registries, 'unqualified-search-registries = []\n')
  return { CONTAINERS_CONF: conf, CONTAINERS_STORAGE_CONF: storage, CONTAINERS_REGISTRIES_CONF: registries }
}

export interface PodmanService {
  /** unix:///…/podman.sock (or tcp://127.0.0.1:PORT): what DOCKER_HOST says to reach it. */
  dockerHost: string
  docker: Docker
  /** The environment the podman CLI needs to see the same storage and configuration. */
  env: NodeJS.ProcessEnv
  stop(): Promise<void>
}

async function answers(docker: Docker): Promise<boolean> {
  try {
    await docker.ping()
    return true
  } catch {
    // Not listening yet: asked again until the deadline.
    return false
  }
}

/** A port nothing listens on now (the service takes it next). */
async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  await new Promise((resolve) => server.close(resolve))
  return port
}

/**
 * Starts `podman system service` on a fresh socket (or, with `tcp`, on 127.0.0.1 without TLS) and waits until it
 * answers the Docker API.
 */
export async function startPodman(
  options: { tcp?: boolean; timeoutMs?: number } = {},
): Promise<PodmanService> {
  if (podmanSkipReason !== null) throw new Error(podmanSkipReason)
  const env = writeConfig()
  const dir = makeTempDir('ralph-podman-')
  const socket = join(dir.path, 'podman.sock')
  const port = options.tcp ? await freePort() : 0
  const address = options.tcp ? `tcp://127.0.0.1:${port}` : `unix://${socket}`
  let log = ''
  const child: ChildProcess = spawn('podman', ['system', 'service', '--time=0', address], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  child.stderr!.on('data', (c: Buffer) => (log += c.toString()))
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()))
  const docker = new Docker(
    options.tcp ? { host: '127.0.0.1', port, protocol: 'http' } : { socketPath: socket },
  )
  const deadline = Date.now() + (options.timeoutMs ?? 60_000)
  while (!(await answers(docker))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL')
      dir.cleanup()
      throw new Error(`podman system service did not start (exit ${child.exitCode}): ${log.trim()}`)
    }
    await new Promise((r) => setTimeout(r, 100))
  }
  return {
    dockerHost: address,
    docker,
    env,
    async stop() {
      if (child.exitCode === null) {
        child.kill('SIGTERM')
        await exited
      }
      dir.cleanup()
    },
  }
}
