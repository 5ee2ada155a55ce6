import { z } from 'zod'
import { writeFileAtomic } from '../workspace'
import { defineTool } from './defineTool'
import { resolveProjectPath } from './paths'
import { STATUS_FILE, SUMMARY_FILE } from './ralphFiles'
import { errorResult, okResult, type RunContext, type ToolResult } from './types'

const schema = z.strictObject({
  summary: z
    .string()
    .describe(
      'What you did for this task: the changes made, files touched, and what the user can now do. Written to ' +
        '.ralph/summary.md.',
    ),
  evidence: z
    .string()
    .optional()
    .describe('How you verified it: commands run and their results (tests passing, build output).'),
})
export type MarkCompleteArgs = z.infer<typeof schema>

export function summaryMarkdown(args: MarkCompleteArgs): string {
  const parts = ['# Summary', '', args.summary.trim(), '']
  if (args.evidence?.trim()) parts.push('## Evidence', '', args.evidence.trim(), '')
  return parts.join('\n')
}

export async function markCompleteTool(args: MarkCompleteArgs, ctx: RunContext): Promise<ToolResult> {
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

export const markComplete = defineTool({
  name: 'mark_complete',
  description:
    'Declare the task done, only once the work is implemented and verified: writes .ralph/summary.md and sets ' +
    '.ralph/status.txt to complete. The harness then runs the quality gates; failures come back in ' +
    '.ralph/feedback.md.',
  schema,
  readOnly: false,
  run: markCompleteTool,
})
