import { existsSync, mkdirSync, readdirSync } from 'node:fs'
import { link, rm, writeFile } from 'node:fs/promises'
import { basename, join } from 'node:path'
import { randomBytes } from 'node:crypto'
import { AppError } from '../../shared/errors'
import { defaultLoopConfig, ralphDir, ralphFiles, type RalphFile } from './ralphFiles'

export interface InitOptions {
  /** Who opened it, for origin.md: "Ralph Studio desktop app", "web host", "ralph init" … */
  openedFrom: string
  now?: Date
}

export interface InitResult {
  ralphDir: string
  created: boolean
  createdFiles: string[]
}

const gitignore = `# Ralph Studio: keep the snapshot store and lock files out of your own git.
snapshots.git/
*.lock
*.tmp
`

function describeFolder(projectDir: string): string {
  const entries = readdirSync(projectDir).filter((e) => e !== '.ralph')
  const git = existsSync(join(projectDir, '.git')) ? 'a git repository' : 'not a git repository'
  return entries.length === 0
    ? `an empty folder (${git})`
    : `a folder with ${entries.length} top-level entries (${git})`
}

function initialContent(file: RalphFile, projectDir: string, options: InitOptions): string {
  const now = (options.now ?? new Date()).toISOString()
  switch (file) {
    case 'origin':
      return [
        `# Origin of ${basename(projectDir)}`,
        '',
        `- Opened: ${now}`,
        `- From: ${options.openedFrom}`,
        `- Folder: ${projectDir}`,
        `- When opened it was ${describeFolder(projectDir)}.`,
        '',
        'This file is written once and never changed by Ralph.',
        '',
      ].join('\n')
    case 'status':
      return 'waiting\n'
    case 'iteration':
      return '0\n'
    case 'phase':
      return 'plan\n'
    case 'taskCounter':
      return '0\n'
    case 'taskHistory':
      return '# Task history\n\n'
    case 'config':
      return JSON.stringify(defaultLoopConfig, null, 2) + '\n'
    case 'gitignore':
      return gitignore
    default:
      return ''
  }
}

/**
 * Creates `.ralph/` with every state file. Idempotent: existing files are never overwritten, so running it
 * on a project that is mid-task changes nothing.
 */
export async function initRalphDir(projectDir: string, options: InitOptions): Promise<InitResult> {
  const dir = ralphDir(projectDir)
  const created = !existsSync(dir)
  try {
    mkdirSync(dir, { recursive: true })
  } catch (err) {
    throw new AppError(
      'io',
      `Cannot create ${dir}: ${(err as Error).message}. Check the folder's permissions.`,
    )
  }
  const createdFiles: string[] = []
  // origin.md first, so it describes the folder as the user had it.
  for (const file of Object.keys(ralphFiles) as RalphFile[]) {
    const path = join(dir, ralphFiles[file])
    const tmp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.init.tmp`
    try {
      // Written whole to a temp file, then hard-linked into place: link() fails if the file exists, so this
      // never overwrites and never leaves a half-written file, even with another process initialising at once.
      await writeFile(tmp, initialContent(file, projectDir, options))
      await link(tmp, path)
      createdFiles.push(ralphFiles[file])
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') {
        throw new AppError(
          'io',
          `Cannot write ${path}: ${(err as Error).message}. Check the folder's permissions.`,
        )
      }
    } finally {
      await rm(tmp, { force: true })
    }
  }
  return { ralphDir: dir, created, createdFiles }
}
