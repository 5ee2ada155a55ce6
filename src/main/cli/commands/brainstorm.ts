import { basename } from 'node:path'
import { createInterface } from 'node:readline'
import type { Readable } from 'node:stream'
import { brainstormDomains, type BrainstormEvent } from '../../../shared/brainstorm'
import { toErrorPayload } from '../../../shared/errors'
import { BrainstormSession } from '../../brainstorm'
import { BrainstormRepo } from '../../store/brainstormRepo'
import { checkProjectFolder } from '../../workspace/projectFolder'
import { openCliServices } from '../openCore'
import { exitCodeFor, writeJson } from '../output'
import { ExitCode, type CliCommand, type CliContext } from '../types'

const usage = `Usage: ralph brainstorm [--quick] [--yes] [--project DIR] [--json]

A guided brainstorm that ends in a validated VISION.md and ROADMAP.md at the project root (seed 004's seven
phases: setup, technique, ideate, organize, crystallize, output, adversarial review). The session is saved after
every step: run the command again to resume where it stopped, with the same idea ledger
(.ralph/brainstorm/ledger.md).

  --quick   for a new session: five questions, then the documents and the review
  --yes     take the default of every closed choice: confirm, dismiss the findings, write the files, and
            "New draft" (VISION.draft.md / ROADMAP.draft.md) for a file that exists
  --json    read one answer per stdin line, print NDJSON events: brainstorm.phase, brainstorm.say (with
            "choice" when a closed question is asked), brainstorm.idea, brainstorm.interrupt, brainstorm.pivot,
            brainstorm.findings, brainstorm.written, brainstorm.error

A closed choice is answered by its number or its label; anything else is asked again. In the idea phase,
"/organize" asks to start organizing.
Exit codes: 0 files written, 3 the session waits for you (end of input; run again to resume), 4 the documents or
the review could not be obtained, 5 provider or configuration error, 130 interrupted (the session is saved).`

const phaseTitle: Record<string, string> = {
  setup: 'SETUP',
  technique: 'TECHNIQUE',
  ideate: 'IDEATE',
  organize: 'ORGANIZE',
  crystallize: 'CRYSTALLIZE',
  quick: 'QUICK MODE',
  output: 'OUTPUT',
  review: 'ADVERSARIAL REVIEW',
  done: 'DONE',
}

/** The terminal's rendering of an event (null: nothing to show). After 30 ideas only the deltas are shown. */
export function formatBrainstormEvent(event: BrainstormEvent): string | null {
  switch (event.type) {
    case 'brainstorm.phase':
      return event.from === null
        ? `── ${phaseTitle[event.to]} ──`
        : `── ${phaseTitle[event.from]} → ${phaseTitle[event.to]} ──`
    case 'brainstorm.say':
      return `\n${event.text}`
    case 'brainstorm.idea':
      return Number(event.id.slice(1)) <= 30 ? `  + ${event.id} [${event.domain}] ${event.title}` : null
    case 'brainstorm.interrupt':
      return `  ! ${event.at} ideas: time for the ${event.kind} round`
    case 'brainstorm.pivot':
      return `  → domain pivot: ${brainstormDomains.find((d) => d.tag === event.to)?.name ?? event.to}`
    case 'brainstorm.findings':
      return `\nReview findings (${event.findings.length}):\n${event.findings
        .map((f, i) => `  ${i + 1}. [${f.severity}] ${f.what}`)
        .join('\n')}`
    case 'brainstorm.written':
      return `\nWrote ${event.files.join(' and ')}.`
    case 'brainstorm.error':
      return `\nralph: ${event.message}${event.problems?.length ? `\n${event.problems.map((p) => `  - ${p}`).join('\n')}` : ''}`
  }
}

function counters(session: BrainstormSession): string | null {
  const v = session.view()
  if (v.phase !== 'ideate') return null
  const next = v.nextInterruptAt === null ? '' : ` · next interrupt at ${v.nextInterruptAt}`
  return `[${v.ideaCount} ideas · ${v.domainsCovered.length}/12 domains · lens: ${v.lens ?? '-'}${next}]`
}

/** The command with its input injected: tests and other hosts pass a stream; the CLI passes process.stdin. */
export async function runBrainstorm(ctx: CliContext, input: Readable): Promise<number> {
  const projectDir = checkProjectFolder(ctx.projectDir)
  const quick = ctx.values.quick === true
  const yes = ctx.values.yes === true
  const services = openCliServices(ctx.env, 'brainstorm')
  const lines = createInterface({ input, crlfDelay: Infinity, terminal: false })
  const reader = lines[Symbol.asyncIterator]()
  // Ctrl+C while waiting for a line: every step is saved already, so stopping here loses nothing.
  const interrupted = new Promise<'interrupted'>((resolve) => {
    if (ctx.signal.aborted) resolve('interrupted')
    ctx.signal.addEventListener('abort', () => resolve('interrupted'), { once: true })
  })
  const emit = (event: BrainstormEvent) => {
    if (ctx.json) return writeJson(ctx.stdout, event)
    const text = formatBrainstormEvent(event)
    if (text !== null) (event.type === 'brainstorm.error' ? ctx.stderr : ctx.stdout).write(`${text}\n`)
  }
  try {
    const model = services.providerSettings.modelConfig()
    const project = services.projects.upsert(projectDir, basename(projectDir) || projectDir, Date.now())
    const session = await BrainstormSession.open(
      {
        projectDir,
        projectId: project.id,
        repo: new BrainstormRepo(services.db),
        model,
        signal: ctx.signal,
        emit,
        logger: services.logger,
      },
      { quick },
    )
    await session.run()
    while (!session.finished) {
      let answer = yes ? session.defaultAnswer() : null
      if (answer === null) {
        if (!ctx.json) {
          const line = counters(session)
          ctx.stdout.write(`${line ? `${line}\n` : ''}> `)
        }
        const next = await Promise.race([reader.next(), interrupted])
        if (next === 'interrupted') {
          if (!ctx.json)
            ctx.stderr.write('\nralph: stopped (the session is saved; run ralph brainstorm to resume)\n')
          return ExitCode.interrupted
        }
        // End of input: every step is saved already; the session waits for the user (unless only the
        // optional work-queue offer was left).
        if (next.done) return session.state.written.length ? ExitCode.ok : ExitCode.needsClarification
        answer = next.value
        // Piped answers are echoed, so a log of the session reads like the conversation it was.
        if (!ctx.json && !(input as { isTTY?: boolean }).isTTY) ctx.stdout.write(`${answer}\n`)
      } else if (!ctx.json) {
        const pending = session.pending
        const label =
          pending?.kind === 'choice' ? pending.options.find((o) => o.value === answer)?.label : null
        ctx.stdout.write(`> ${label ?? answer} (--yes)\n`)
      }
      const outcome = await session.answer(answer)
      if (outcome === 'paused') return session.failed ? ExitCode.taskFailed : ExitCode.needsClarification
    }
    return ExitCode.ok
  } catch (err) {
    const payload = toErrorPayload(err)
    if (ctx.json) writeJson(ctx.stdout, { type: 'brainstorm.error', message: payload.message })
    else
      ctx.stderr.write(
        `ralph: ${payload.message}${payload.kind === 'cancelled' ? ' (the session is saved)' : ''}\n`,
      )
    return exitCodeFor(err)
  } finally {
    lines.close()
    services.close()
  }
}

export const brainstormCommand: CliCommand = {
  name: 'brainstorm',
  usage,
  options: {
    quick: { type: 'boolean' },
    yes: { type: 'boolean', short: 'y' },
  },
  run: (ctx) => runBrainstorm(ctx, process.stdin),
}
