import type { Criterion } from '../../shared/queue'
import type { VerdictAnswer } from '../../shared/verdicts'
import type { CommandOutcome, LoopConfig } from '../loop'
import { blockedPathRule, blockedPathRules, scanAddedLines } from '../secrets'
import { changedLines, type ChangedFile } from './changes'

/**
 * The deterministic stage of verification (DESIGN.md §16, seed 004 verify.sh's checks): the project's test and
 * lint commands (the same `.ralph/config.json` commands the quality gates run), diff size against the task's
 * estimate, blocked paths, secrets, and the DET: criteria. Any failure here is FAIL without a model call.
 */

export type CheckAnswer = VerdictAnswer

export interface CheckVerdict {
  ref: string
  text: string
  answer: CheckAnswer
  reason: string
}

export type RunCommand = (command: string, timeoutMs: number, signal: AbortSignal) => Promise<CommandOutcome>

export interface DeterministicInput {
  files: readonly ChangedFile[]
  /** The task's estimated diff in lines; the check is skipped without one. */
  estimatedDiff?: number | null
  commands: LoopConfig['commands']
  commandTimeoutMs: number
  criteria: readonly Criterion[]
  runCommand: RunCommand
  signal: AbortSignal
}

export interface DeterministicResult {
  /** The standard checks (test, lint, diff-size, blocked-paths, secrets) that apply, then one per DET criterion. */
  verdicts: CheckVerdict[]
  /** The tail of each command's output, for the evidence bundles. */
  outputs: { name: string; command: string; ok: boolean; output: string }[]
}

export const DIFF_SIZE_FACTOR = 3
const OUTPUT_TAIL = 2000

const RUNNERS =
  /^(?:npm|npx|pnpm|yarn|bun|deno|node|tsx|tsc|vitest|jest|mocha|eslint|prettier|ruff|mypy|pytest|python3?|pip|go|cargo|rustc|make|cmake|mvn|gradle|\.\/gradlew|dotnet|bundle|rake|rspec|php|composer|mix|swift|sh|bash|\.\/\S+)\b/

/**
 * The command a DET: criterion names, if any: the first `backticked` span that is a command line (a known runner,
 * or a program with arguments), or a leading "<command> passes / succeeds / exits 0" that starts with a known
 * runner (seed 001's "pytest tests/test_parser.py passes"). It runs through the sandboxed shell and passes on exit 0.
 */
export function criterionCommand(text: string): string | null {
  const spans = [...text.matchAll(/`([^`]+)`/g)].map((m) => m[1]!.trim())
  const runner = spans.find((s) => RUNNERS.test(s))
  if (runner) return runner
  const plain = /^(?:run(?:ning)?\s+)?(.+?)\s+(?:passes|pass|succeeds|exits (?:with )?(?:code )?0)\b/i.exec(
    text,
  )
  if (plain && RUNNERS.test(plain[1]!.trim())) return plain[1]!.trim()
  // Any other backticked command line (a space: a program and its arguments, `test -f app.js`) runs as it is and
  // decides by its exit status. A single backticked word (`greet`, `app.js`) names a thing, not a command.
  return spans.find((s) => /\S\s+\S/.test(s)) ?? null
}

/** Which standard check a DET: criterion without a command stands for (seed 004: DET maps to verify.sh's checks). */
function mappedCheck(text: string): 'test' | 'lint' | 'diff-size' | 'blocked-paths' | 'secrets' | null {
  if (/\btests?\b|\bspecs?\b/i.test(text)) return 'test'
  if (/\blint(?:s|er|ing)?\b|\btype-?check/i.test(text)) return 'lint'
  if (/\bsecrets?\b|\bcredentials?\b/i.test(text)) return 'secrets'
  if (/\.env|\.pem|\.key|\.p12|\.pfx|\.ssh|\.aws|\.netrc|id_rsa|blocked path/i.test(text))
    return 'blocked-paths'
  if (/\bdiff\b|\blines? changed\b/i.test(text)) return 'diff-size'
  return null
}

function describeFailure(command: string, outcome: CommandOutcome, timeoutMs: number): string {
  const why = outcome.timedOut
    ? `timed out after ${timeoutMs} ms`
    : outcome.exitCode === null
      ? 'could not run'
      : `exited with ${outcome.exitCode}`
  return `\`${command}\` ${why}`
}

const tail = (text: string) => {
  const t = text.trim()
  return t.length > OUTPUT_TAIL ? `[… ${t.length - OUTPUT_TAIL} characters cut]\n${t.slice(-OUTPUT_TAIL)}` : t
}

export async function runDeterministicChecks(input: DeterministicInput): Promise<DeterministicResult> {
  const verdicts: CheckVerdict[] = []
  const outputs: DeterministicResult['outputs'] = []
  const ran = new Map<string, CheckVerdict>()

  const runOnce = async (name: string, command: string, text: string): Promise<CheckVerdict> => {
    const earlier = ran.get(command)
    if (earlier) return { ...earlier, text }
    const outcome = await input.runCommand(command, input.commandTimeoutMs, input.signal)
    const ok = outcome.exitCode === 0 && !outcome.timedOut
    outputs.push({ name, command, ok, output: tail(outcome.output) })
    const verdict: CheckVerdict = {
      ref: name,
      text,
      answer: ok ? 'YES' : 'NO',
      reason: ok
        ? `\`${command}\` passed.`
        : `${describeFailure(command, outcome, input.commandTimeoutMs)}: ${tail(outcome.output).slice(-400) || '(no output)'}`,
    }
    ran.set(command, verdict)
    return verdict
  }

  // Cheap checks on the diff first.
  const blocked = input.files
    .flatMap((f) => [f.path, ...(f.oldPath ? [f.oldPath] : [])])
    .map((p) => ({ path: p, rule: blockedPathRule(p) }))
    .filter((b) => b.rule !== null)
  verdicts.push({
    ref: 'blocked-paths',
    text: `No change to blocked paths (${blockedPathRules()})`,
    answer: blocked.length ? 'NO' : 'YES',
    reason: blocked.length
      ? `The task changed blocked paths: ${blocked.map((b) => `${b.path} (${b.rule})`).join(', ')}. Undo those changes.`
      : 'No blocked path was changed.',
  })

  const secrets = await scanAddedLines(input.files)
  verdicts.push({
    ref: 'secrets',
    text: 'No secrets in the added lines',
    answer: secrets.length ? 'NO' : 'YES',
    reason: secrets.length
      ? `Possible secrets were added: ${secrets
          .slice(0, 5)
          .map((s) => `${s.path}:${s.line} (${s.kind}, ${s.preview})`)
          .join(
            '; ',
          )}${secrets.length > 5 ? ` and ${secrets.length - 5} more` : ''}. Remove them; read credentials from the environment.`
      : 'No secret was found in the added lines.',
  })

  const estimate = input.estimatedDiff
  if (estimate && estimate > 0) {
    const lines = changedLines(input.files)
    const limit = estimate * DIFF_SIZE_FACTOR
    verdicts.push({
      ref: 'diff-size',
      text: `The diff stays within ${DIFF_SIZE_FACTOR}× the estimate of ${estimate} lines`,
      answer: lines <= limit ? 'YES' : 'NO',
      reason:
        lines <= limit
          ? `${lines} changed lines, within ${limit}.`
          : `${lines} changed lines, more than ${DIFF_SIZE_FACTOR}× the estimate of ${estimate} (${limit}). Keep the change to what the task asks.`,
    })
  }

  for (const name of ['test', 'lint'] as const) {
    const command = input.commands[name]
    if (!command || input.signal.aborted) continue
    verdicts.push(await runOnce(name, command, `The project's ${name} command passes`))
  }

  const standard = new Map(verdicts.map((v) => [v.ref, v]))
  for (const c of input.criteria.filter((c) => c.kind === 'DET')) {
    if (input.signal.aborted) break
    const command = criterionCommand(c.text)
    if (command) {
      verdicts.push({ ...(await runOnce(c.ref, command, c.text)), ref: c.ref })
      continue
    }
    const mapped = mappedCheck(c.text)
    const check = mapped ? standard.get(mapped) : undefined
    if (check) {
      verdicts.push({
        ref: c.ref,
        text: c.text,
        answer: check.answer,
        reason: `By the ${mapped} check: ${check.reason}`,
      })
    } else if (mapped === 'test' || mapped === 'lint') {
      verdicts.push({
        ref: c.ref,
        text: c.text,
        answer: 'NEEDS_HUMAN',
        reason: `No ${mapped} command is set, so this cannot be checked. Set "commands": { "${mapped}": "…" } in .ralph/config.json, or write the command in the criterion in backticks (DET: \`npm test\`).`,
      })
    } else {
      const failed = [...standard.values()].filter((v) => v.answer === 'NO')
      verdicts.push({
        ref: c.ref,
        text: c.text,
        answer: failed.length ? 'NO' : 'YES',
        reason: failed.length
          ? `The deterministic checks failed: ${failed.map((f) => f.ref).join(', ')}.`
          : 'Covered by the deterministic checks, which all passed.',
      })
    }
  }
  return { verdicts, outputs }
}
