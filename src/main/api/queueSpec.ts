import { lstat, readFile } from 'node:fs/promises'
import type { queueCalls } from '../../shared/api/queue'
import { AppError } from '../../shared/errors'
import { SPEC_MAX_CHARS, specPathProblem } from '../../shared/queue'
import { queryState } from '../queue'
import { resolveProjectPath } from '../tools'
import { ifMissing, writeFileAtomic } from '../workspace'
import type { Handlers } from './types'

/**
 * The task dialog's spec editor (#26: the queue needs no file the app cannot make): read a spec file, and create or
 * change one. A spec is a markdown file inside the project (not in `.ralph/` or `.git`); its path is confined like
 * every path the model names (no `..`, no symlink out of the project).
 */

async function specFile(projectDir: string, input: string): Promise<{ abs: string; rel: string }> {
  const problem = specPathProblem(input)
  if (problem) throw new AppError('invalid-input', problem)
  const resolved = await resolveProjectPath(projectDir, input.trim())
  if (!resolved.ok) throw new AppError('invalid-input', resolved.error)
  return { abs: resolved.abs, rel: resolved.rel }
}

/** The file's text, or null when it does not exist; a folder or an over-long file is refused. */
async function readSpecText(abs: string, rel: string): Promise<string | null> {
  const st = await lstat(abs).catch(ifMissing(null))
  if (st === null) return null
  if (!st.isFile()) throw new AppError('invalid-input', `${rel} is not a file: name a markdown file.`)
  if (st.size > SPEC_MAX_CHARS * 4)
    throw new AppError(
      'invalid-input',
      `${rel} is too large for the spec editor; edit it in your own editor.`,
    )
  return readFile(abs, 'utf8')
}

export const queueSpecHandlers: Pick<Handlers<typeof queueCalls>, 'queue.spec' | 'queue.saveSpec'> = {
  'queue.spec': async ({ projectId, path }, ctx) => {
    const projectDir = ctx.resolveProject(projectId).path
    const wanted = path ?? (await queryState({ projectDir })).spec
    if (wanted === null) return { path: null, exists: false, text: null }
    const { abs, rel } = await specFile(projectDir, wanted)
    const text = await readSpecText(abs, rel)
    return { path: rel, exists: text !== null, text }
  },

  'queue.saveSpec': async ({ projectId, path, text }, ctx) => {
    const { abs, rel } = await specFile(ctx.resolveProject(projectId).path, path)
    const before = await readSpecText(abs, rel)
    await writeFileAtomic(abs, text.endsWith('\n') || text === '' ? text : `${text}\n`)
    return { path: rel, created: before === null }
  },
}
