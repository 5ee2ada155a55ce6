import { execFileSync } from 'node:child_process'
import { mkdirSync, readFileSync, symlinkSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { put, removeDir, tempDir } from '../tools/testkit'
import {
  findRulesFiles,
  readProjectRules,
  RULE_FILE_CHARS,
  RULES_TOTAL_CHARS,
  setRuleEnabled,
} from './rulesFiles'

let root: string

beforeEach(() => {
  root = tempDir()
})
afterEach(() => removeDir(root))

describe('rules files', () => {
  it('finds every kind at the project root, in a fixed order', async () => {
    put(root, 'CLAUDE.md', 'Run npm test.')
    put(root, 'AGENTS.md', 'Build with npm run build.')
    put(root, '.cursorrules', 'Use tabs.')
    put(root, '.cursor/rules/b.mdc', 'Rule b.')
    put(root, '.cursor/rules/a.md', 'Rule a.')
    put(root, '.cursor/rules/notes.txt', 'not a rule')
    put(root, '.clinerules/style.md', 'Cline style.')
    put(root, '.github/copilot-instructions.md', 'Copilot says hi.')
    const { files, text } = await readProjectRules(root)
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
    expect((await readProjectRules(root)).text).toBe(text)
  })

  it('reads .clinerules as a file too, and gives nothing when there are none', async () => {
    expect(await readProjectRules(root)).toEqual({ files: [], text: '' })
    put(root, '.clinerules', 'One file of Cline rules.')
    expect((await findRulesFiles(root)).map((f) => f.path)).toEqual(['.clinerules'])
  })

  it('caps a 1 MB AGENTS.md with a note, and all files together', async () => {
    put(root, 'AGENTS.md', 'x'.repeat(1_000_000))
    put(root, 'CLAUDE.md', 'y'.repeat(RULE_FILE_CHARS))
    put(root, '.cursorrules', 'z'.repeat(RULE_FILE_CHARS))
    const { files, text } = await readProjectRules(root)
    expect(files[0]).toMatchObject({ path: 'AGENTS.md', bytes: 1_000_000, capped: true })
    expect(files[0]!.text).toContain(
      'capped: AGENTS.md is 1000000 bytes and only its first 12000 characters fit here',
    )
    expect(files[1]!.capped).toBe(false)
    expect(files[2]!.capped).toBe(true) // the total cap is spent
    expect(text.length).toBeLessThan(RULES_TOTAL_CHARS + 2_000)
  })

  it('skips symlinks, FIFOs, symlinked folders and empty files', async () => {
    put(root, 'outside/secret.md', 'SECRET')
    symlinkSync(join(root, 'outside/secret.md'), join(root, 'AGENTS.md'))
    execFileSync('mkfifo', [join(root, 'CLAUDE.md')])
    symlinkSync(join(root, 'outside'), join(root, '.clinerules'))
    put(root, '.cursorrules', '   \n')
    mkdirSync(join(root, '.cursor'))
    symlinkSync(join(root, 'outside'), join(root, '.cursor/rules'))
    expect(await findRulesFiles(root)).toEqual([])
  })

  it('leaves out a file the user turned off, and a whole folder', async () => {
    put(root, 'AGENTS.md', 'Agents.')
    put(root, 'CLAUDE.md', 'Claude.')
    put(root, '.cursor/rules/a.md', 'Rule a.')
    put(root, '.ralph/config.json', JSON.stringify({ maxIterations: 7 }))
    expect(await setRuleEnabled(root, './CLAUDE.md', false)).toEqual(['CLAUDE.md'])
    await setRuleEnabled(root, '.cursor/rules/', false)
    const { files, text } = await readProjectRules(root)
    expect(files.map((f) => [f.path, f.enabled])).toEqual([
      ['AGENTS.md', true],
      ['CLAUDE.md', false],
      ['.cursor/rules/a.md', false],
    ])
    expect(text).toContain('Agents.')
    expect(text).not.toContain('Claude.')
    expect(text).not.toContain('Rule a.')
    const config = JSON.parse(readFileSync(join(root, '.ralph/config.json'), 'utf8')) as Record<
      string,
      unknown
    >
    expect(config).toEqual({ maxIterations: 7, rules: { disabled: ['CLAUDE.md', '.cursor/rules'] } })
    await setRuleEnabled(root, 'CLAUDE.md', true)
    expect((await readProjectRules(root)).text).toContain('Claude.')
  })

  it('says what is wrong with a broken rules setting', async () => {
    put(root, 'AGENTS.md', 'Agents.')
    put(root, '.ralph/config.json', JSON.stringify({ rules: { disabled: 'CLAUDE.md' } }))
    await expect(readProjectRules(root)).rejects.toThrow(/\.ralph\/config\.json: .*rules\.disabled/)
    await expect(setRuleEnabled(root, '../x', false)).rejects.toThrow(/not a path inside the project/)
  })
})
