// A host whose core sends one Task-mode chat message and runs its task, for the resume tests, which kill it with
// SIGKILL mid-task: node --import tsx chatChild.ts <appDataDir> <projectId> <message>
import { createCore } from '../../../src/main/api/core'

const [appDataDir, projectId, text] = process.argv.slice(2)
const core = createCore({ appDataDir: appDataDir!, env: {}, host: { kind: 'web', openedFrom: 'test' } })
core.events.subscribe(({ name, payload }) => {
  if (name === 'loop.event')
    process.stdout.write(`${JSON.stringify((payload as { event: unknown }).event)}\n`)
})
core
  .dispatch('chat.send', { projectId: Number(projectId), mode: 'task', text })
  .then((result) => process.stdout.write(`${JSON.stringify({ type: 'sent', ...result })}\n`))
  .catch((err: unknown) => {
    process.stderr.write(`${String(err)}\n`)
    process.exit(1)
  })
