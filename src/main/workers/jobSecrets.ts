// A job leaves the machine: nothing in it may be a key (issue #39, DESIGN.md §14). The schema has no field for one;
// this check finds one that got into a field meant for text (a task's notes, the verifier's feedback quoting the
// model's work): the secrets the coordinator holds, by value, and anything secretlint's rules recognise.
import { AppError } from '../../shared/errors'
import { scanAddedLines } from '../secrets'

/** A secret shorter than this is not looked for by value: it would match ordinary words. */
const MIN_SECRET_LENGTH = 8

/** Refuses the job text when it holds one of `secrets` or a secret secretlint knows; says where, never the secret. */
export async function refuseSecretsIn(
  jobText: string,
  secrets: readonly (string | null | undefined)[],
): Promise<void> {
  for (const secret of secrets) {
    if (!secret || secret.length < MIN_SECRET_LENGTH) continue
    if (jobText.includes(secret) || jobText.includes(JSON.stringify(secret).slice(1, -1)))
      throw new AppError(
        'invalid-input',
        'This job would carry a secret of this machine (a model key or a vault secret) in its text: a job never ' +
          'holds one. The model key reaches the worker only as its environment (RALPH_API_KEY). Remove it from the ' +
          "task's notes or feedback and try again.",
      )
  }
  const lines = jobText.split('\n').map((text, i) => ({ line: i + 1, text }))
  const findings = await scanAddedLines([{ path: 'job.json', added: lines }])
  if (findings.length > 0) {
    const where = findings.map((f) => `${f.kind} at line ${f.line} (${f.preview})`).join(', ')
    throw new AppError(
      'invalid-input',
      `This job's text holds what looks like a secret: ${where}. A job never carries a key: remove it from the ` +
        "task's notes or feedback (a model key reaches the worker only as its environment).",
    )
  }
}
