import { AppError } from '../../../shared/errors'
import {
  findRulesFiles,
  RULE_FILE_CHARS,
  RULES_TOTAL_CHARS,
  setRuleEnabled,
  type RulesFile,
} from '../../loop/rulesFiles'
import { checkProjectFolder } from '../../workspace/projectFolder'
import { expectAction, expectPositionals, usageError } from '../args'
import { writeJson } from '../output'
import { ExitCode, type CliCommand } from '../types'

const usage = `Usage: ralph rules [list|enable PATH|disable PATH] [--project DIR] [--json]

  list           the rules files found at the project root, whether each is in effect, its size and whether it is
                 capped (the default)
  disable PATH   stop giving this file (or every file in this folder) to the model, in this project
  enable PATH    give it again

Read into every iteration's prompt and the verifier's: AGENTS.md, CLAUDE.md, .cursorrules, .cursor/rules/*.md|*.mdc,
.clinerules (a file or a folder of .md/.txt files) and .github/copilot-instructions.md. Each file is capped at
${RULE_FILE_CHARS} characters and all of them together at ${RULES_TOTAL_CHARS}, with a note saying so. Symlinks and
anything but regular files are skipped. The switches live in .ralph/config.json ("rules": { "disabled": [...] }),
which the model cannot change.`

function line(f: RulesFile): string {
  const state = f.enabled ? 'in effect' : 'off'
  return `${f.enabled ? '✔' : '✘'} ${f.path}  ${f.bytes} bytes  ${state}${f.enabled && f.capped ? ', capped' : ''}`
}

export const rulesCommand: CliCommand = {
  name: 'rules',
  usage,
  async run(ctx) {
    const [action = 'list', path] = ctx.positionals
    expectPositionals(ctx.positionals, 0, 2, 'rules [list|enable PATH|disable PATH]', 'rules')
    expectAction(action, ['list', 'enable', 'disable'], 'rules')
    if (action === 'list' && path !== undefined) throw usageError('rules', `Unexpected argument "${path}".`)
    if (action !== 'list' && path === undefined)
      throw new AppError('invalid-input', `Say which file: ralph rules ${action} CLAUDE.md`)
    const projectDir = checkProjectFolder(ctx.projectDir, { write: action !== 'list' })
    if (action === 'disable') {
      const target = path!.replace(/\\/g, '/').replace(/^\.\//, '').replace(/\/+$/, '')
      const found = await findRulesFiles(projectDir)
      if (!found.some((f) => f.path === target || f.path.startsWith(`${target}/`)))
        throw new AppError(
          'invalid-input',
          `"${path}" is not a rules file of this project. "ralph rules" lists them.`,
        )
    }
    if (action !== 'list') await setRuleEnabled(projectDir, path!, action === 'enable')
    const files = await findRulesFiles(projectDir)
    if (ctx.json) {
      writeJson(ctx.stdout, {
        ok: true,
        files: files.map(({ path, bytes, capped, enabled }) => ({ path, bytes, capped, enabled })),
        fileCapChars: RULE_FILE_CHARS,
        totalCapChars: RULES_TOTAL_CHARS,
      })
      return ExitCode.ok
    }
    const lines = files.length
      ? files.map(line)
      : [
          'No rules files at the project root (AGENTS.md, CLAUDE.md, .cursorrules, .cursor/rules/, .clinerules, .github/copilot-instructions.md).',
        ]
    ctx.stdout.write(lines.join('\n') + '\n')
    return ExitCode.ok
  },
}
