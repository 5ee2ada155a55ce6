// `npm run eval [-- --models a,b] [--set FILE] [--out DIR] [--limit N]`: measures how often the task parser gets
// the task type and the ADD/MODIFY/FIX/REMOVE markers right, per model, against seed 000's targets. It calls the
// provider you configured (`ralph config set …` or RALPH_PROVIDER / RALPH_MODEL / RALPH_BASE_URL / RALPH_API_KEY);
// with none it says so and exits 0 without pretending.
import { resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { isAppError } from '../src/shared/errors'
import type { ModelConfig } from '../src/main/llm/createModel'
import { openCliServices } from '../src/main/cli/openCore'
import { formatTable, loadEvalSet, runEval, writeReports, type ModelReport } from './eval.harness'

const usage = `Usage: npm run eval -- [--models M1,M2] [--set FILE] [--out DIR] [--limit N]

Runs the real task parser over the labelled messages (default resources/eval/messages.json) with your configured
provider, once per model (default: the configured model), and prints classification and marker accuracy against
seed 000's targets (> 90% and > 80%). The table and JSON go to bench-results/ (or --out).`

function fail(message: string, code: number): never {
  process.stderr.write(`eval: ${message}\n`)
  process.exit(code)
}

async function main(): Promise<void> {
  let args
  try {
    args = parseArgs({
      options: {
        models: { type: 'string' },
        set: { type: 'string' },
        out: { type: 'string' },
        limit: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }).values
  } catch (err) {
    fail(`${(err as Error).message}\n${usage}`, 2)
  }
  if (args.help) {
    process.stdout.write(`${usage}\n`)
    return
  }
  const limit = args.limit === undefined ? undefined : Number(args.limit)
  if (limit !== undefined && (!Number.isSafeInteger(limit) || limit < 1))
    fail(`--limit needs a whole number of at least 1, got "${args.limit}".`, 2)
  const setPath = resolve(args.set ?? 'resources/eval/messages.json')
  const set = loadEvalSet(setPath)
  if (limit) set.cases = set.cases.slice(0, limit)

  const services = openCliServices(process.env, 'eval')
  let base: ModelConfig
  try {
    base = services.providerSettings.modelConfig()
  } catch (err) {
    if (!isAppError(err, 'config')) throw err
    if (services.providerSettings.effective().value === null) {
      process.stdout.write(
        'eval: no LLM provider is configured, so nothing was evaluated. Configure one with ' +
          '`ralph config set provider …` and `ralph config set model …` (and `ralph config set apiKey`), or set ' +
          'RALPH_PROVIDER, RALPH_MODEL (RALPH_BASE_URL, RALPH_API_KEY), then run `npm run eval` again.\n',
      )
      return
    }
    fail(err.message, 5)
  } finally {
    services.close()
  }

  const models = args.models
    ? args.models
        .split(',')
        .map((m) => m.trim())
        .filter(Boolean)
    : [base.model]
  const controller = new AbortController()
  process.once('SIGINT', () => controller.abort())
  process.stdout.write(
    `Evaluating the task parser on ${set.cases.length} labelled messages (${setPath}) with ${base.provider}: ${models.join(', ')}\n`,
  )
  const reports: ModelReport[] = []
  for (const model of models) {
    const report = await runEval({
      set,
      model: { ...base, model },
      signal: controller.signal,
      onCase: (r, i, total) => {
        if (process.stdout.isTTY) process.stdout.write(`\r  ${model}: ${i + 1}/${total} (${r.id})\x1b[K`)
      },
    })
    if (process.stdout.isTTY) process.stdout.write('\r\x1b[K')
    reports.push(report)
  }
  process.stdout.write(`\n${formatTable(reports)}\n`)
  const file = writeReports(resolve(args.out ?? 'bench-results'), reports, setPath)
  process.stdout.write(`\nJSON: ${file}\n`)
}

main().catch((err: unknown) => {
  if (isAppError(err, 'cancelled')) fail('stopped.', 130)
  fail(err instanceof Error ? err.message : String(err), 1)
})
