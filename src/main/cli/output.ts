import type { Writable } from 'node:stream'
import { toErrorPayload, type ErrorKind } from '../../shared/errors'
import { ExitCode } from './types'

const exitForKind: Partial<Record<ErrorKind, number>> = {
  'invalid-input': ExitCode.usage,
  'not-found': ExitCode.usage,
  config: ExitCode.config,
  provider: ExitCode.config,
  store: ExitCode.config,
  'needs-clarification': ExitCode.needsClarification,
  'task-failed': ExitCode.taskFailed,
  // Another loop or operation holds the project: the task could not run (documented with exit 4).
  busy: ExitCode.taskFailed,
  cancelled: ExitCode.interrupted,
}

export function exitCodeFor(err: unknown): number {
  return exitForKind[toErrorPayload(err).kind] ?? 1
}

export function writeJson(out: Writable, value: unknown): void {
  out.write(JSON.stringify(value) + '\n')
}

/** Reports an error the way the caller asked: one JSON object with --json, one plain line otherwise. */
export function reportError(err: unknown, json: boolean, stdout: Writable, stderr: Writable): number {
  const payload = toErrorPayload(err)
  if (json) writeJson(stdout, { ok: false, error: payload })
  else stderr.write(`ralph: ${payload.message}\n`)
  return exitCodeFor(err)
}
