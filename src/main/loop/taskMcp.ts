// The project's MCP servers for the length of a task's iterations (the built-in loop's; an engine has its own).
import { mcpCardReport, McpSession } from '../mcp'
import type { TaskRun } from './taskRun'

/**
 * Runs the iterations with the project's MCP servers started (their tools join the model's), and stops them at
 * the end. A server that does not start is a line on the card, never a failed task.
 */
export async function withMcp<T>(run: TaskRun, work: () => Promise<T>): Promise<T> {
  const { input } = run
  const session = await McpSession.open({
    projectDir: input.projectDir,
    env: input.env ?? process.env,
    logger: input.logger,
    signal: input.signal,
    app: input.mcpServers ?? null,
    // A lane runs in a copy of the user's project: their approvals of its `.mcp.json` entries are the project's.
    ...(input.recordAs ? { approvalsOf: input.recordAs.projectPath } : {}),
  })
  session.follow(
    mcpCardReport(input.runs.db, run.rec.runId, (servers) =>
      run.emit({ type: 'mcp.servers', task: run.task, servers }),
    ),
  )
  run.mcp = session
  try {
    return await work()
  } finally {
    run.mcp = null
    await session.close()
  }
}
