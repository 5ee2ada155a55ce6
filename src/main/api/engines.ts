// Agent engines for Settings and the project header (DESIGN.md §9): which CLIs this machine has (asked once a minute
// at most: each `--version` takes seconds), and each project's choice in its `.ralph/config.json`.
import type { EngineChoice, EnginesList, enginesCalls } from '../../shared/api/engines'
import {
  detectEngines,
  ENGINE_CLIS,
  locateEngine,
  readProjectEngine,
  setProjectEngine,
  type EngineId,
} from '../engines'
import type { Handlers } from './types'

/** How long a lookup of the installed CLIs is reused. */
export const ENGINE_CACHE_MS = 60_000

// The contract's engine ids and the core's are one list.
const sameIds: [EngineChoice, EngineId] extends [EngineId, EngineChoice] ? true : never = true
void sameIds

type Installs = EnginesList['installs']

/** One host's lookup, shared by concurrent callers and kept for `ttlMs`. */
export class EngineLookup {
  private last: { at: number; installs: Promise<Installs> } | null = null

  constructor(
    private readonly env: () => NodeJS.ProcessEnv = () => process.env,
    private readonly ttlMs = ENGINE_CACHE_MS,
    private readonly now: () => number = Date.now,
  ) {}

  /** The host's environment, for Locate… (it stores in the app data folder this environment names). */
  environment(): NodeJS.ProcessEnv {
    return this.env()
  }

  get(refresh = false): { at: number; installs: Promise<Installs> } {
    const t = this.now()
    if (refresh || !this.last || t - this.last.at >= this.ttlMs) {
      const entry: { at: number; installs: Promise<Installs> } = { at: t, installs: Promise.resolve([]) }
      entry.installs = (async () => {
        try {
          const list = await detectEngines(this.env())
          return list.map((e) => ({ ...e, minVersion: ENGINE_CLIS[e.id].minVersion }))
        } catch (err) {
          // A lookup that failed is not kept: the next call asks again.
          if (this.last === entry) this.last = null
          throw err
        }
      })()
      this.last = entry
    }
    return this.last
  }
}

export function engineHandlers(lookup: EngineLookup = new EngineLookup()): Handlers<typeof enginesCalls> {
  return {
    'engines.list': async ({ projectId, refresh }, ctx) => {
      const dir = projectId === undefined ? null : ctx.resolveProject(projectId).path
      const found = lookup.get(refresh === true)
      const [installs, project] = await Promise.all([
        found.installs,
        dir === null ? Promise.resolve(null) : readProjectEngine(dir),
      ])
      return { installs, project, checkedAt: found.at }
    },
    'engines.locate': async ({ engine, path }, ctx) => {
      const install = await locateEngine(engine, path, lookup.environment())
      await lookup.get(true).installs // every list shows the located program from now on
      ctx.emit('settings.changed', { key: `engine:located:${engine}` })
      return { ...install, minVersion: ENGINE_CLIS[engine].minVersion }
    },
    'engines.project': async ({ projectId }, ctx) => readProjectEngine(ctx.resolveProject(projectId).path),
    'engines.setForProject': async ({ projectId, engine, engineModel }, ctx) => {
      const next = await setProjectEngine(ctx.resolveProject(projectId).path, engine, engineModel)
      ctx.emit('settings.changed', { key: `engine:${projectId}` })
      return next
    },
  }
}
