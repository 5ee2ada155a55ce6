import type { RulesList, rulesCalls } from '../../shared/api/rules'
import { AppError } from '../../shared/errors'
import { findRulesFiles, RULE_FILE_CHARS, RULES_TOTAL_CHARS, setRuleEnabled } from '../loop/rulesFiles'
import type { Handlers } from './types'

async function list(projectDir: string): Promise<RulesList> {
  const files = await findRulesFiles(projectDir)
  return {
    files: files.map(({ path, bytes, capped, enabled }) => ({ path, bytes, capped, enabled })),
    fileCapChars: RULE_FILE_CHARS,
    totalCapChars: RULES_TOTAL_CHARS,
  }
}

/** A project's rules files and their switches, for the project page (DESIGN.md §9). */
export const rulesHandlers: Handlers<typeof rulesCalls> = {
  'rules.list': async ({ projectId }, ctx) => list(ctx.resolveProject(projectId).path),
  'rules.set': async ({ projectId, path, enabled }, ctx) => {
    const dir = ctx.resolveProject(projectId).path
    // Only a file that is there can be turned off (a typo would otherwise be kept silently); any can be turned on.
    if (!enabled && !(await findRulesFiles(dir)).some((f) => f.path === path))
      throw new AppError('invalid-input', `${path} is not a rules file of this project.`)
    await setRuleEnabled(dir, path, enabled)
    return list(dir)
  },
}
