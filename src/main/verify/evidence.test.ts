import { describe, expect, it } from 'vitest'
import type { Criterion } from '../../shared/queue'
import type { ChangedFile } from './changes'
import { buildEvidence, EVIDENCE_BUDGET_CHARS, keywords } from './evidence'

const criterion = (text: string): Criterion => ({ ref: 'AC1', kind: 'LLM', text, tagged: true })
const task = { id: 't-ab12', name: 'Add login' }

function file(path: string, hunkBodies: string[], extra: Partial<ChangedFile> = {}): ChangedFile {
  return {
    path,
    status: 'modified',
    opaque: false,
    additions: hunkBodies.length,
    deletions: 0,
    hunks: hunkBodies.map((body, i) => ({
      header: `@@ -${i * 10 + 1},1 +${i * 10 + 1},2 @@`,
      lines: [` ctx`, `+${body}`],
    })),
    added: [],
    ...extra,
  }
}

describe('keywords', () => {
  it('keeps the words and path parts a diff could contain', () => {
    const k = keywords('File src/auth.py exports AuthHandler with a login() method')
    expect(k).toEqual(expect.arrayContaining(['src/auth.py', 'auth', 'exports', 'authhandler', 'login']))
    expect(k).not.toContain('with')
  })
})

describe('buildEvidence', () => {
  it('holds the criterion, the task, the files, the checks and every hunk when it fits', () => {
    const e = buildEvidence({
      criterion: criterion('login() rejects an empty password'),
      task: { ...task, notes: 'Use bcrypt' },
      files: [file('src/login.ts', ['export function login(user, password) {}'])],
      checks: [{ ref: 'test', text: 'tests', answer: 'YES', reason: '`npm test` passed.' }],
      outputs: [{ name: 'test', command: 'npm test', ok: true, output: '3 passed' }],
    })
    expect(e.truncated).toBe(false)
    expect(e.decisiveCut).toBe(false)
    expect(e.text).toContain('## Criterion AC1\nlogin() rejects an empty password')
    expect(e.text).toContain('## Task t-ab12: Add login\nNotes: Use bcrypt')
    expect(e.text).toContain('- src/login.ts (modified, +1 -0)')
    expect(e.text).toContain('- test: pass')
    expect(e.text).toContain('$ npm test  (passed)\n3 passed')
    expect(e.text).toContain('+export function login(user, password) {}')
    expect(e.text).toContain('Nothing was cut')
  })

  it('puts the matching hunks first and says when only unrelated ones were cut', () => {
    const filler = Array.from({ length: 40 }, (_, i) => `const filler${i} = '${'z'.repeat(60)}'`)
    const e = buildEvidence({
      criterion: criterion('login() rejects an empty password'),
      task,
      files: [file('src/unrelated.ts', filler), file('src/login.ts', ['if (!password) throw new Error()'])],
      checks: [],
      outputs: [],
      budgetChars: 3000,
    })
    expect(e.text).toContain('+if (!password) throw new Error()')
    expect(e.truncated).toBe(true)
    expect(e.decisiveCut).toBe(false)
    expect(e.text).toContain('The hunks that were cut do not match this criterion.')
    expect(e.text.length).toBeLessThan(3000)
  })

  it('says decisive hunks were cut when matching hunks did not fit', () => {
    const many = Array.from({ length: 60 }, (_, i) => `login check ${i} ${'p'.repeat(300)}`)
    const e = buildEvidence({
      criterion: criterion('login() rejects an empty password'),
      task,
      files: [file('src/login.ts', many)],
      checks: [],
      outputs: [],
    })
    expect(e.decisiveCut).toBe(true)
    expect(e.text).toContain('DECISIVE HUNKS WERE CUT')
    expect(e.text).toMatch(/\d+ of 60 hunks were cut or left out to fit the budget \(in src\/login.ts\)/)
    expect(e.text.length).toBeLessThanOrEqual(EVIDENCE_BUDGET_CHARS)
  })

  it('names binary or oversized files it could not show', () => {
    const e = buildEvidence({
      criterion: criterion('the logo is updated'),
      task,
      files: [file('assets/logo.png', [], { opaque: true })],
      checks: [],
      outputs: [],
    })
    expect(e.truncated).toBe(true)
    expect(e.text).toContain('- assets/logo.png (modified, binary or too large to show)')
    expect(e.text).toContain('Not shown (binary or too large): assets/logo.png.')
  })
})
