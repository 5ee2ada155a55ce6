// Child process for cross-process snapshot tests: node --import tsx child.ts <action> <projectDir> [arg]
import { SnapshotEngine } from '../../../src/main/snapshots'
import { memoryLogger } from '../../../src/main/workspace/logFile'

const [action, projectDir, arg] = process.argv.slice(2)
const engine = new SnapshotEngine({
  projectDir: projectDir!,
  lockTimeoutMs: 120_000,
  // `undo-crash <point>`: a real crash (kill -9 of this process) at that point of the rollback.
  faultHook: (point) => {
    if (action === 'undo-crash' && point === arg) process.kill(process.pid, 'SIGKILL')
  },
  logger: memoryLogger(),
})

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
  } else if (action === 'read') {
    // Every read-only operation, as `ralph snapshot list|status|diff|show|rollback --preview|usage` runs them.
    const list = await engine.list()
    const status = await engine.status()
    const usage = await engine.usage()
    const tag = list.items[0]?.tag
    const more = tag
      ? {
          diff: await engine.diff(tag),
          show: (await engine.show(tag, arg!)).content.toString(),
          fileDiff: await engine.fileDiff(tag, arg!),
          preview: await engine.previewRollback(tag),
        }
      : {}
    process.stdout.write(JSON.stringify({ list, status, usage, ...more }) + '\n')
  } else if (action === 'apply') {
    // `apply <options as JSON>`: a lane's merged task applied to the folder (the test kills it midway).
    const r = await engine.applyCommitAsTask(
      JSON.parse(arg!) as Parameters<typeof engine.applyCommitAsTask>[0],
    )
    process.stdout.write(JSON.stringify(r.kind) + '\n')
  } else if (action === 'undo-crash') {
    await engine.undo()
    process.stdout.write('finished\n')
  } else {
    throw new Error(`unknown action ${action}`)
  }
}

main().catch((err: unknown) => {
  process.stderr.write(String(err) + '\n')
  process.exit(1)
})
