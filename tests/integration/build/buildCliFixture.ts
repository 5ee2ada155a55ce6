import { parsed, tools } from '../loop/harness'

/** A DET criterion's command: exits 0 when FILE holds exactly WANT (verification needs no model call for it). */
export const CHECK_SCRIPT = `const fs = require('fs')
const [file, want] = process.argv.slice(2)
const got = fs.existsSync(file) ? fs.readFileSync(file, 'utf8').trim() : '(missing)'
if (got !== want) { console.error(file + ': expected "' + want + '", got "' + got + '"'); process.exit(1) }
`

/** One attempt of a queue task: the parse, then one iteration that writes FILE and marks the task complete. */
export const writeAttempt = (file: string, content: string) => [
  parsed({ type: 'fresh', title: `Write ${file}` }),
  tools(
    ['write_file', { path: file, content: `${content}\n` }],
    ['mark_complete', { summary: `Wrote ${file} with the requested content.` }],
  ),
]

/** The events of `ralph … --json` (NDJSON on stdout; anything else there is ignored). */
export const ndjson = <E>(text: string): E[] =>
  text
    .trim()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as E)

/** The CLI's environment: its own Ralph home, and the fake LLM as the provider. */
export const cliEnv = (home: string, baseUrl: string, model = 'fake-model'): NodeJS.ProcessEnv => ({
  RALPH_HOME: home,
  RALPH_PROVIDER: 'openai-compatible',
  RALPH_MODEL: model,
  RALPH_BASE_URL: baseUrl,
  RALPH_API_KEY: '',
})
