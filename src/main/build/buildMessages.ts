/**
 * The build's sentences that name CLI commands, one function each, so a test can feed every one of them to the
 * app's rewriting (renderer features/queue/appText.ts) and fail when a wording changes. The CLI prints them as they
 * are.
 */

export const nothingToBuild = (): string =>
  'There is nothing to build yet: set a spec (`ralph set-spec FILE`) and add tasks (`ralph task add "NAME" --accept "DET: …"`).'

/** Done tasks waiting for a person's decision before a build may start. */
export const waitingForDecision = (ids: readonly string[]): string =>
  `${ids.join(', ')} ${ids.length > 1 ? 'are' : 'is'} done and wait${ids.length > 1 ? '' : 's'} for a decision: ` +
  `accept (\`ralph task accept ID\`) or reject (\`ralph task reject "reason" --id ID\`) first, then build again.`

/** " 2 issues still open (INVESTIGATE): …": appended to a build's closing line; empty without open issues. */
export function openIssuesNote(issues: readonly { id: string; desc: string }[]): string {
  if (issues.length === 0) return ''
  const listed = issues
    .slice(0, 5)
    .map((i) => `${i.id} ${i.desc}`)
    .join('; ')
  return (
    ` ${issues.length} issue${issues.length > 1 ? 's' : ''} still open (INVESTIGATE): ${listed}` +
    `${issues.length > 5 ? ' …' : ''}. Turn them into tasks (\`ralph task add\`) or close them (\`ralph issue done ID\`).`
  )
}

/** Interactive mode: a verified task the person did not approve (false) or has not yet (null). */
export const approvalMessage = (id: string, approved: boolean | null): string =>
  approved === false
    ? `${id} passed verification but was not approved; it stays done. Accept it (\`ralph task accept ${id}\`) or reject it (\`ralph task reject "reason" --id ${id}\`), then build again.`
    : `${id} passed verification and waits for your approval (interactive mode): \`ralph task accept ${id}\`, then \`ralph build\` again.`
