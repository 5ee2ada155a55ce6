// Child process for cross-process snapshot tests: node --import tsx child.ts <action> <projectDir> [arg]
import { SnapshotEngine } from '../../../src/main/snapshots'

const [action, projectDir, arg] = process.argv.slice(2)
const engine = new SnapshotEngine({ projectDir: projectDir!, lockTimeoutMs: 120_000 })

async function main(): Promise<void> {
  process.stdout.write('ready\n')
  if (action === 'save') {
    const n = Number(arg ?? 1)
    const tags: string[] = []
    for (let i = 0; i < n; i++)
      tags.push((await engine.save({ kind: 'manual', message: `pid ${process.pid} #${i}` })).tag)
    process.stdout.write(JSON.stringify(tags) + '\n')
  } else if (action === 'rollback') {
    const r = await engine.rollback(arg!)
    process.stdout.write(JSON.stringify(r.safetyTag) + '\n')
  } else {
    throw new Error(`unknown action ${action}`)
  }
}

main().catch((err: unknown) => {
  process.stderr.write(String(err) + '\n')
  process.exit(1)
})
