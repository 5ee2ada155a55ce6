import { workersConfigSchema, type WorkerBackend, type WorkersConfig } from '../../../../shared/workersConfig'

/** Settings → Workers as typed: numbers as text (a half-typed value survives), optional fields as '' when unset. */
export interface WorkersForm {
  backend: WorkerBackend
  image: string
  dockerHost: string
  network: string
  cpus: string
  memoryMb: string
  pids: string
  timeoutMinutes: string
  context: string
  namespace: string
  retry: WorkersConfig['retry']
  remoteSecrets: string[]
}
export type WorkersField = keyof WorkersForm

export const formOf = (c: WorkersConfig): WorkersForm => ({
  backend: c.backend,
  image: c.image,
  dockerHost: c.dockerHost ?? '',
  network: c.network ?? '',
  cpus: String(c.cpus),
  memoryMb: String(c.memoryMb),
  pids: String(c.pids),
  timeoutMinutes: String(c.timeoutMinutes),
  context: c.kubernetes.context ?? '',
  namespace: c.kubernetes.namespace ?? '',
  retry: c.retry,
  remoteSecrets: c.remoteSecrets,
})

const NUMBERS = ['cpus', 'memoryMb', 'pids', 'timeoutMinutes'] as const

/** Text as a number for the schema; text that is no number at all stays text (the schema then says so). */
const numberOf = (text: string): number | string =>
  text.trim() !== '' && Number.isFinite(Number(text)) ? Number(text) : text

const optional = (text: string): string | undefined => (text.trim() === '' ? undefined : text.trim())

/** The field a schema issue is about (`kubernetes.context` is the Context field). */
function fieldOf(path: readonly PropertyKey[]): WorkersField | null {
  const [head, sub] = path
  if (head === 'kubernetes') return sub === 'namespace' ? 'namespace' : 'context'
  return typeof head === 'string' && head !== 'kubernetes' ? (head as WorkersField) : null
}

export type FormCheck =
  | { ok: true; config: WorkersConfig }
  | { ok: false; errors: Partial<Record<WorkersField, string>>; other: string | null }

/**
 * The form against the same schema the core reads "workers" with (pure): the settings to save, or each field's
 * error from the schema (a value that is no number at all: "Enter a number.").
 */
export function checkForm(form: WorkersForm): FormCheck {
  const numbers = Object.fromEntries(NUMBERS.map((k) => [k, numberOf(form[k])])) as Record<
    (typeof NUMBERS)[number],
    number | string
  >
  const candidate = {
    backend: form.backend,
    image: form.image.trim(),
    ...(optional(form.dockerHost) ? { dockerHost: optional(form.dockerHost) } : {}),
    ...(optional(form.network) ? { network: optional(form.network) } : {}),
    ...numbers,
    kubernetes: {
      ...(optional(form.context) ? { context: optional(form.context) } : {}),
      ...(optional(form.namespace) ? { namespace: optional(form.namespace) } : {}),
    },
    retry: form.retry,
    remoteSecrets: form.remoteSecrets,
  }
  const parsed = workersConfigSchema.safeParse(candidate)
  if (parsed.success) return { ok: true, config: parsed.data }
  const errors: Partial<Record<WorkersField, string>> = {}
  let other: string | null = null
  for (const issue of parsed.error.issues) {
    const field = fieldOf(issue.path)
    const notANumber =
      field !== null && field in numbers && typeof numbers[field as keyof typeof numbers] === 'string'
    const message = notANumber ? 'Enter a number.' : issue.message
    if (field === null) other ??= message
    else errors[field] ??= message
  }
  return { ok: false, errors, other }
}
