import type { z } from 'zod'
import type { EventInput, EventName } from '../../shared/api/contract'
import type { CallDef, CallMap } from '../../shared/api/define'
import type { Db } from '../store/database'
import type { Logger } from '../workspace/logFile'

import type { Project } from '../../shared/project'

export type ProjectRef = Project

/** What every handler may use. Created once per host (Electron, web, tests) in one place. */
export interface ApiContext {
  db: Db
  appDataDir: string
  /** Looks a registered project up by id; throws AppError('not-found') otherwise. */
  resolveProject(projectId: number): ProjectRef
  /** Publishes a contract event to every connected client (IPC and WebSocket alike). */
  emit<N extends EventName>(name: N, payload: EventInput<N>): void
  /** Where a failure the handler survives is recorded (the core's `services.logger`). */
  logger: Logger
}

export type Handler<C extends CallDef> = (
  input: z.output<C['input']>,
  ctx: ApiContext,
) => Promise<z.input<C['output']>>
export type Handlers<T extends CallMap> = { [K in keyof T]: Handler<T[K]> }
