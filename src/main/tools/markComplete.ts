import { writeFileAtomic } from '../workspace/atomicWrite'
import { resolveProjectPath } from './paths'
import { STATUS_FILE, SUMMARY_FILE } from './ralphFiles'
import { errorResult, okResult, type ToolContext, type ToolResult } from './types'

export interface MarkCompleteArgs {
  summary: string
  evidence?: string
}

export function summaryMarkdown(args: MarkCompleteArgs): string {
  const parts = ['# Summary', '', args.summary.trim(), '']
  if (args.evidence?.trim()) parts.push('## Evidence', '', args.evidence.trim(), '')
  return parts.join('\n')
}

export async function markCompleteTool(args: MarkCompleteArgs, ctx: ToolContext): Promise<ToolResult> {
  if (args.summary.trim() === '') {
    return errorResult('summary is empty. Describe what you did (files changed, what the user can now do).')
  }
  const summary = await resolveProjectPath(ctx.projectDir, SUMMARY_FILE)
  const status = await resolveProjectPath(ctx.projectDir, STATUS_FILE)
  if (!summary.ok) return errorResult(summary.error)
  if (!status.ok) return errorResult(status.error)
  try {
    // Summary first: a status of complete must never point at a missing summary.
    await writeFileAtomic(summary.abs, summaryMarkdown(args))
    await writeFileAtomic(status.abs, 'complete')
  } catch (err) {
    return errorResult(`Could not record completion: ${(err as Error).message}`)
  }
  return okResult(
    `Wrote ${SUMMARY_FILE} and set ${STATUS_FILE} to complete. The harness will now run the quality gates; ` +
      'if any fails, the reason will be in .ralph/feedback.md.',
    { changedFiles: [SUMMARY_FILE, STATUS_FILE], completed: true },
  )
}
