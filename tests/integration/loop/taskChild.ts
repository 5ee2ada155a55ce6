// A second process running a real task (the CLI's `ralph run`, minus argument parsing), for the coordination and
// crash tests: node --import tsx taskChild.ts <projectDir> <databaseFile> <llmBaseUrl> <message>
import { runTask } from '../../../src/main/loop/runTask'
import { openDatabase } from '../../../src/main/store/database'
import { RunsRepo } from '../../../src/main/store/runsRepo'
import { memoryLogger } from '../../../src/main/workspace/logFile'

const [projectDir, dbFile, baseUrl, message] = process.argv.slice(2)
const db = openDatabase(dbFile!)

runTask({
  projectDir: projectDir!,
  logger: memoryLogger(),
  message: message!,
  model: { provider: 'openai-compatible', model: 'fake-model', baseUrl: baseUrl!, apiKey: null },
  signal: new AbortController().signal,
  runs: new RunsRepo(db),
  emit: (event) => process.stdout.write(`${JSON.stringify(event)}\n`),
})
  .then((result) => {
    process.stdout.write(`${JSON.stringify({ type: 'result', ...result })}\n`)
    db.close()
  })
  .catch((err: unknown) => {
    process.stderr.write(`${String(err)}\n`)
    process.exit(1)
  })
