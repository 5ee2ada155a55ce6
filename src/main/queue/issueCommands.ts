import { AppError } from '../../shared/errors'
import type { IssueRecord } from '../../shared/queue'
import type { CommandContext, CommandOutcome } from './commands'
import { append, invalid, remove, specFor } from './edits'
import { newId } from './ids'
import type { QueueState } from './planFile'
import { issueRecords, takenIds } from './records'

export function addIssue(
  state: QueueState,
  descIn: string,
  spec: string | undefined,
  ctx: CommandContext,
): CommandOutcome {
  const desc = descIn.trim()
  if (desc === '') throw invalid('An issue needs a description: ralph issue add "what is wrong".')
  const issueSpec = specFor(state, spec, 'issue')
  const id = newId('i', takenIds(state), ctx.random)
  const record: IssueRecord = { t: 'issue', id, spec: issueSpec, desc }
  return {
    state: append(state, record),
    message: `issue add ${id}: ${desc}`,
    ids: [id],
    spec: issueSpec,
    warnings: [],
  }
}

export function closeIssue(state: QueueState, id: string | undefined): CommandOutcome {
  const issues = issueRecords(state)
  const matches = id === undefined ? issues.slice(0, 1) : issues.filter((i) => i.rec.id === id)
  if (matches.length === 0) {
    throw id === undefined
      ? invalid('There are no issues to close.')
      : new AppError('not-found', `There is no issue ${id} in the queue. \`ralph query issues\` lists them.`)
  }
  if (matches.length > 1)
    throw invalid(`Issue id ${id} is on several lines; give one of them a new id in .ralph/plan.jsonl.`)
  const issue = matches[0]!
  return {
    state: remove(state, new Set([issue.index])),
    message: `issue done ${issue.rec.id}: ${issue.rec.desc}`,
    ids: [issue.rec.id],
    spec: issue.rec.spec,
    warnings: [],
  }
}
