// A worker test image built without any registry: the host's node, git and sh with the shared libraries they load,
// imported as a one-layer image through the Docker Engine API (`POST /images/create?fromSrc=-`). Its tag is a hash
// of what goes in, so it is built once per machine and engine, and again only when node or git change.
//
//   npx tsx scripts/worker-image-local.ts      # builds (or finds) it on the engine DOCKER_HOST names, prints its tag
//
// The tests use it; users build the real image from docker/worker.Dockerfile (npm run worker:image).
import { execFileSync, spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import {
  chmodSync,
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
} from 'node:fs'
import { writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, dirname, join } from 'node:path'
import { pathToFileURL } from 'node:url'
import type Docker from 'dockerode'

/** Bump when the image's layout changes, so machines build it again. */
const LAYOUT_VERSION = 1
export const LOCAL_IMAGE_REPO = 'localhost/ralph-worker-local'

const PROGRAMS = ['node', 'git', 'sh']

/** A program's own path and the libraries `ldd` says it loads (the loader included). */
function filesOf(program: string): string[] {
  const path = execFileSync('sh', ['-c', `command -v ${program}`], { encoding: 'utf8' }).trim()
  const ldd = execFileSync('ldd', [path], { encoding: 'utf8' })
  const libs = [...ldd.matchAll(/(?:=>\s*)?(\/\S+)\s+\(0x/g)].map((m) => m[1]!)
  return [path, ...libs]
}

/** Where a file goes in the image: its real folder (merged /usr: /lib/x → /usr/lib/x), under the name it is loaded by. */
const imagePath = (path: string): string => join(realpathSync(dirname(path)), basename(path))

function imageFiles(): Map<string, string> {
  const files = new Map<string, string>()
  for (const program of PROGRAMS) for (const f of filesOf(program)) files.set(imagePath(f), f)
  return files
}

/** The tag: a hash of the layout and of each file's place, size and change time (hashing 100 MB of node is slow). */
export function localImageTag(files = imageFiles()): string {
  const hash = createHash('sha256').update(`layout ${LAYOUT_VERSION}\n`)
  for (const [to, from] of [...files].sort(([a], [b]) => a.localeCompare(b))) {
    const s = statSync(from)
    hash.update(`${to} ${s.size} ${s.mtimeMs}\n`)
  }
  return `${LOCAL_IMAGE_REPO}:${hash.digest('hex').slice(0, 16)}`
}

/** The root filesystem in a staging folder: the files, merged-/usr links, and what a process expects to find. */
function stageRootfs(files: Map<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'ralph-rootfs-'))
  for (const [to, from] of files) {
    mkdirSync(join(root, dirname(to)), { recursive: true })
    copyFileSync(from, join(root, to))
    chmodSync(join(root, to), statSync(from).mode & 0o777)
  }
  for (const top of ['bin', 'lib', 'lib64']) symlinkSync(`usr/${top}`, join(root, top))
  mkdirSync(join(root, 'etc'))
  writeFileSync(
    join(root, 'etc/passwd'),
    'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534::/nonexistent:/bin/sh\n',
  )
  writeFileSync(join(root, 'etc/group'), 'root:x:0:\nnogroup:x:65534:\n')
  for (const dir of ['root', 'tmp', 'job', 'result', 'work']) mkdirSync(join(root, dir))
  chmodSync(join(root, 'tmp'), 0o1777)
  return root
}

async function imageExists(docker: Docker, tag: string): Promise<boolean> {
  try {
    await docker.getImage(tag).inspect()
    return true
  } catch (err) {
    if ((err as { statusCode?: number }).statusCode === 404) return false
    throw err
  }
}

/** Finds the local worker image on the engine, building it first when it is not there; gives its tag. */
export async function ensureLocalWorkerImage(docker: Docker): Promise<string> {
  const files = imageFiles()
  const tag = localImageTag(files)
  if (await imageExists(docker, tag)) return tag
  const root = stageRootfs(files)
  try {
    const tar = spawn('tar', ['-C', root, '--numeric-owner', '--owner=0', '--group=0', '-cf', '-', '.'], {
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    // The tag goes in `repo` ("may include a tag" in the Docker API): Podman's service ignores a separate `tag`.
    const progress = await docker.importImage(tar.stdout, {
      repo: tag,
      changes: ['ENV PATH=/usr/local/bin:/usr/bin:/bin', 'ENV HOME=/root', 'WORKDIR /work'],
    })
    await new Promise<void>((resolve, reject) =>
      docker.modem.followProgress(progress, (err) => (err ? reject(err) : resolve())),
    )
    if (!(await imageExists(docker, tag)))
      throw new Error(`the engine took the import but has no image ${tag}`)
    return tag
  } finally {
    rmSync(root, { recursive: true, force: true })
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { connectDocker } = await import('../src/main/workers/dockerClient')
  const { docker } = connectDocker(process.env)
  console.log(await ensureLocalWorkerImage(docker))
}
