import { execFileSync } from 'node:child_process'
import { mkdirSync, readFileSync, symlinkSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { put } from '../tools/testkit'
import { useTempDir } from '../workspace/testkit'
import {
  findRulesFiles,
  readProjectRules,
  RULE_FILE_CHARS,
  RULES_TOTAL_CHARS,
  setRuleEnabled,
} from './rulesFiles'

const dir = useTempDir()

describe('rules files', () => {
  it('finds every kind at the project root, in a fixed order', async () => {
    put(dir.path, 'CLAUDE.md', 'Run npm test.')
    put(dir.path, 'AGENTS.md', 'Build with npm run build.')
    put(dir.path, '.cursorrules', 'Use tabs.')
    put(dir.path, '.cursor/rules/b.mdc', 'Rule b.')
    put(dir.path, '.cursor/rules/a.md', 'Rule a.')
    put(dir.path, '.cursor/rules/notes.txt', 'not a rule')
    put(dir.path, '.clinerules/style.md', 'Cline style.')
    put(dir.path, '.github/copilot-instructions.md', 'Copilot says hi.')
    const { files, text } = await readProjectRules(dir.path)
    expect(files.map((f) => f.path)).toEqual([
      'AGENTS.md',
      'CLAUDE.md',
      '.cursorrules',
      '.cursor/rules/a.md',
      '.cursor/rules/b.mdc',
      '.clinerules/style.md',
      '.github/copilot-instructions.md',
    ])
    expect(text).toContain('### AGENTS.md\nBuild with npm run build.')
    expect(text.indexOf('AGENTS.md')).toBeLessThan(text.indexOf('CLAUDE.md'))
    // The same files give the same bytes: the prompt's stable prefix depends on it.
    expect((await readProjectRules(dir.path)).text).toBe(text)
  })

  it('reads .clinerules as a file too, and gives nothing when there are none', async () => {
    expect(await readProjectRules(dir.path)).toEqual({ files: [], text: '' })
    put(dir.path, '.clinerules', 'One file of Cline rules.')
    expect((await findRulesFiles(dir.path)).map((f) => f.path)).toEqual(['.clinerules'])
  })

  it('caps a 1 MB AGENTS.md with a note, and all files together', async () => {
    put(dir.path, 'AGENTS.md', 'x'.repeat(1_000_000))
    put(dir.path, 'CLAUDE.md', 'y'.repeat(RULE_FILE_CHARS))
    put(dir.path, '.cursorrules', 'z'.repeat(RULE_FILE_CHARS))
    const { files, text } = await readProjectRules(dir.path)
    expect(files[0]).toMatchObject({ path: 'AGENTS.md', bytes: 1_000_000, capped: true })
    expect(files[0]!.text).toContain(
      'capped: AGENTS.md is 1000000 bytes and only its first 12000 characters fit here',
    )
    expect(files[1]!.capped).toBe(false)
    expect(files[2]!.capped).toBe(true) // the total cap is spent
    expect(text.length).toBeLessThan(RULES_TOTAL_CHARS + 2_000)
  })

  it('skips symlinks, FIFOs, symlinked folders and empty files', async () => {
    put(dir.path, 'outside/secret.md', 'SECRET')
    symlinkSync(join(dir.path, 'outside/secret.md'), join(dir.path, 'AGENTS.md'))
    execFileSync('mkfifo', [join(dir.path, 'CLAUDE.md')])
    symlinkSync(join(dir.path, 'outside'), join(dir.path, '.clinerules'))
    put(dir.path, '.cursorrules', '   \n')
    mkdirSync(join(dir.path, '.cursor'))
    symlinkSync(join(dir.path, 'outside'), join(dir.path, '.cursor/rules'))
    expect(await findRulesFiles(dir.path)).toEqual([])
  })

  it('leaves out a file the user turned off, and a whole folder', async () => {
    put(dir.path, 'AGENTS.md', 'Agents.')
    put(dir.path, 'CLAUDE.md', 'Claude.')
    put(dir.path, '.cursor/rules/a.md', 'Rule a.')
    put(dir.path, '.ralph/config.json', JSON.stringify({ maxIterations: 7 }))
    expect(await setRuleEnabled(dir.path, './CLAUDE.md', false)).toEqual(['CLAUDE.md'])
    await setRuleEnabled(dir.path, '.cursor/rules/', false)
    const { files, text } = await readProjectRules(dir.path)
    expect(files.map((f) => [f.path, f.enabled])).toEqual([
      ['AGENTS.md', true],
      ['CLAUDE.md', false],
      ['.cursor/rules/a.md', false],
    ])
    expect(text).toContain('Agents.')
    expect(text).not.toContain('Claude.')
    expect(text).not.toContain('Rule a.')
    const config = JSON.parse(readFileSync(join(dir.path, '.ralph/config.json'), 'utf8')) as Record<
      string,
      unknown
    >
    expect(config).toEqual({ maxIterations: 7, rules: { disabled: ['CLAUDE.md', '.cursor/rules'] } })
    await setRuleEnabled(dir.path, 'CLAUDE.md', true)
    expect((await readProjectRules(dir.path)).text).toContain('Claude.')
  })

  it('says what is wrong with a broken rules setting', async () => {
    put(dir.path, 'AGENTS.md', 'Agents.')
    put(dir.path, '.ralph/config.json', JSON.stringify({ rules: { disabled: 'CLAUDE.md' } }))
    await expect(readProjectRules(dir.path)).rejects.toThrow(/\.ralph\/config\.json: .*rules\.disabled/)
    await expect(setRuleEnabled(dir.path, '../x', false)).rejects.toThrow(/not a path inside the project/)
  })
})
