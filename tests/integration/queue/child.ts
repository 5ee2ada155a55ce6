// Child process for cross-process queue tests: node --import tsx child.ts add <projectDir> <count> <label>
import { addTask } from '../../../src/main/queue'
import { memoryLogger } from '../../../src/main/workspace/logFile'

/** The queue's changes in this child process: failures they survive are kept in memory. */
const options = { logger: memoryLogger() }

const [action, projectDir, count, label] = process.argv.slice(2)

async function main(): Promise<void> {
  if (action !== 'add') throw new Error(`unknown action ${action}`)
  const ids: string[] = []
  for (let i = 0; i < Number(count); i++)
    ids.push(...(await addTask({ projectDir: projectDir!, name: `${label} ${i}`, options })).ids)
  process.stdout.write(JSON.stringify(ids) + '\n')
}

main().catch((err: unknown) => {
  process.stderr.write(String(err) + '\n')
  process.exit(1)
})
