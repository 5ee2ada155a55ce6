import { createInterface } from 'node:readline/promises'
import type { Preflight } from '../../../shared/queue'
import { startSpec } from '../../queue'
import { checkProjectFolder } from '../../workspace/projectFolder'
import { writeJson } from '../output'
import { ExitCode, type CliContext } from '../types'

/** readline's answer to a question the closed terminal can no longer get. */
function endOfInput(err: unknown): boolean {
  const { code, name } = (err ?? {}) as { code?: unknown; name?: unknown }
  return code === 'ERR_USE_AFTER_CLOSE' || name === 'AbortError'
}

/** Asks seed 001's question in a terminal; null when nobody can answer (not a terminal, or end of input). */
async function ask(ctx: CliContext, preflight: Preflight): Promise<'cancel' | 'abort' | null> {
  if (ctx.json || !process.stdin.isTTY) return null
  const rl = createInterface({ input: process.stdin, output: process.stdout })
  try {
    for (;;) {
      const answer = (await rl.question(`${preflight.prompt.trimEnd()} `)).trim().toLowerCase()
      const choice = preflight.choices.find((c) => c.key === answer || c.choice === answer)
      if (choice) return choice.choice
      ctx.stdout.write(`Answer ${preflight.choices.map((c) => c.key).join(' or ')}.\n`)
    }
  } catch (err) {
    // End of input (Ctrl-D) closes the question: nobody can answer. Anything else is a real failure.
    if (endOfInput(err)) return null
    throw err
  } finally {
    rl.close()
  }
}

/**
 * `ralph plan SPEC`: start work on a spec (seed 001's pre-flight). Unfinished tasks of the queue make it ask:
 * cancel them, or abort; --cancel-unfinished / --abort answer ahead, and without an answer it exits 3.
 */
export async function startSpecCommand(ctx: CliContext, spec: string): Promise<number> {
  const projectDir = checkProjectFolder(ctx.projectDir)
  const ahead =
    ctx.values['cancel-unfinished'] === true ? 'cancel' : ctx.values.abort === true ? 'abort' : undefined
  let r = await startSpec({ projectDir, spec, onUnfinished: ahead, options: { logger: ctx.logger } })
  if (r.outcome === 'needs-choice') {
    const answer = await ask(ctx, r.preflight)
    if (answer === null) {
      if (ctx.json) writeJson(ctx.stdout, { ok: false, outcome: 'needs-choice', preflight: r.preflight })
      else
        ctx.stdout.write(
          `${r.preflight.prompt.trimEnd()}\nAnswer with: ralph plan ${spec} --cancel-unfinished (or --abort)\n`,
        )
      return ExitCode.needsClarification
    }
    r = await startSpec({ projectDir, spec, onUnfinished: answer, options: { logger: ctx.logger } })
  }
  if (ctx.json) writeJson(ctx.stdout, { ok: true, ...r })
  else if (r.outcome === 'aborted') ctx.stdout.write('Aborted: the work queue is unchanged.\n')
  else
    ctx.stdout.write(
      `${r.result?.message ?? `Started ${spec}`}\nAdd its tasks with: ralph task add "NAME" --spec ${spec}\n`,
    )
  return ExitCode.ok
}
