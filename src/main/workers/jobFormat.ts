// Reading job.json and result.json (pure): the version first, so a job from a newer Ralph is refused with words
// that say so, then the strict schema, whose every complaint names the field.
import type { z } from 'zod'
import { AppError } from '../../shared/errors'
import {
  WORKER_JOB_VERSION,
  workerJobSchema,
  workerResultSchema,
  type WorkerJob,
  type WorkerResult,
} from '../../shared/workerJob'

/** job.json's text → the job, or an AppError saying exactly what is wrong with it. */
export function parseJobText(text: string, file: string): WorkerJob {
  return parseVersioned(text, file, 'worker-job', 'job', workerJobSchema)
}

/** result.json's text → the result, or an AppError saying what is wrong with it. */
export function parseResultText(text: string, file: string): WorkerResult {
  return parseVersioned(text, file, 'worker-result', 'result', workerResultSchema)
}

function parseVersioned<T>(text: string, file: string, kind: string, what: string, schema: z.ZodType<T>): T {
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch (err) {
    if (!(err instanceof SyntaxError)) throw err
    throw new AppError(
      'invalid-input',
      `${file} is not valid JSON (${err.message}): it is not a Ralph ${what}.`,
    )
  }
  const head = (json ?? {}) as { ralph?: unknown; version?: unknown }
  if (typeof json !== 'object' || json === null || head.ralph !== kind)
    throw new AppError('invalid-input', `${file} is not a Ralph worker ${what} (no "ralph": "${kind}").`)
  if (head.version !== WORKER_JOB_VERSION)
    throw new AppError(
      'invalid-input',
      `${file} is a worker ${what} of version ${JSON.stringify(head.version)}; this Ralph reads version ` +
        `${WORKER_JOB_VERSION}. Run the same Ralph version on the coordinator and the worker.`,
    )
  const parsed = schema.safeParse(json)
  if (!parsed.success) {
    const problems = parsed.error.issues.map(describeIssue)
    throw new AppError('invalid-input', `${file} is not a valid worker ${what}: ${problems.join('; ')}.`)
  }
  return parsed.data
}

function describeIssue(issue: z.core.$ZodIssue): string {
  const at = issue.path.join('.') || '(top level)'
  if (issue.code === 'unrecognized_keys')
    return `${at === '(top level)' ? '' : `${at}: `}unknown field${issue.keys.length > 1 ? 's' : ''} ${issue.keys
      .map((k) => `"${k}"`)
      .join(', ')} (a job carries no key, nonce or vault secret, and no field this version does not know)`
  return `${at}: ${issue.message}`
}
