// The engine programs the user pointed at with Locate… (Settings → Engine), kept per engine in the app data folder
// so every host and the CLI find them: a file, not SQLite, because detection runs where only the environment is at
// hand (the loop's engine check, a session's start), and the app data folder follows from it (RALPH_HOME …).
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises'
import { homedir } from 'node:os'
import { dirname, join } from 'node:path'
import { z } from 'zod'
import { AppError } from '../../shared/errors'
import { parseJsonOr } from '../../shared/json'
import { isMissing, resolveAppDataDir } from '../workspace'
import type { AgentEngineId } from './types'

const locatedSchema = z.record(z.string(), z.string())
export type LocatedBinaries = Partial<Record<AgentEngineId, string>>

/** The file that holds the located programs, in the app data folder `env` names. */
export function locatedFile(env: NodeJS.ProcessEnv): string {
  return join(
    resolveAppDataDir({ env, platform: process.platform, home: env.HOME ?? homedir() }),
    'engine-paths.json',
  )
}

/** The located programs; none when the file does not exist. A damaged file is an error saying what to do. */
export async function readLocated(env: NodeJS.ProcessEnv): Promise<LocatedBinaries> {
  const file = locatedFile(env)
  let text: string
  try {
    text = await readFile(file, 'utf8')
  } catch (err) {
    if (isMissing(err)) return {}
    throw err
  }
  const checked = locatedSchema.safeParse(parseJsonOr(text, null))
  if (!checked.success)
    throw new AppError(
      'config',
      `${file} is damaged (not a JSON object of engine → program path). Delete it and use Locate… again.`,
    )
  return checked.data as LocatedBinaries
}

/** Stores (or with null forgets) the program located for one engine; written whole, then renamed into place. */
export async function writeLocated(
  env: NodeJS.ProcessEnv,
  id: AgentEngineId,
  path: string | null,
): Promise<void> {
  const file = locatedFile(env)
  const next = { ...(await readLocated(env)) }
  if (path === null) delete next[id]
  else next[id] = path
  await mkdir(dirname(file), { recursive: true })
  const temp = `${file}.${process.pid}.tmp`
  await writeFile(temp, JSON.stringify(next, null, 2) + '\n', { mode: 0o600 })
  await rename(temp, file)
}
