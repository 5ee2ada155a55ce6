/**
 * One readable sentence from zod issues. Our own messages are whole sentences that name the field ("Base URL
 * must be …."), so they stand alone; zod's terse defaults get the field path in front ("projectId: Invalid …").
 */
export function describeIssues(issues: readonly { path: readonly PropertyKey[]; message: string }[]): string {
  return issues
    .map((issue) =>
      issue.path.length && !issue.message.trim().endsWith('.')
        ? `${issue.path.map(String).join('.')}: ${issue.message}`
        : issue.message,
    )
    .join(' ')
}
