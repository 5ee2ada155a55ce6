import { describe, expect, it } from 'vitest'
import { pathRefusal, repoStateRefusal } from './commitTask'

const clean = { task: 4, operation: null, detached: false, branch: 'main', files: 2 }
const paths = { task: 4, edited: [], conflicted: [], staged: [], commitPaths: ['a.ts'], flagged: [] }

describe('repoStateRefusal', () => {
  it('refuses an operation in progress first, then a detached HEAD, then no files', () => {
    expect(repoStateRefusal({ ...clean, operation: 'merge', detached: true })?.code).toBe('operation')
    expect(repoStateRefusal({ ...clean, detached: true, branch: null })?.code).toBe('detached')
    expect(repoStateRefusal({ ...clean, files: 0 })?.code).toBe('nothing')
    expect(repoStateRefusal(clean)).toBeNull()
  })
})

describe('pathRefusal', () => {
  it('refuses files edited since the task before conflicts, staged changes and an empty commit', () => {
    expect(pathRefusal({ ...paths, edited: ['a.ts'], conflicted: ['b.ts'] })).toMatchObject({
      code: 'changed-since',
      paths: ['a.ts'],
    })
    expect(pathRefusal({ ...paths, conflicted: ['b.ts'], staged: ['c.ts'] })?.message).toMatch(/conflicts/)
    expect(pathRefusal({ ...paths, staged: ['c.ts'] })?.message).toMatch(/staged changes/)
    expect(pathRefusal({ ...paths, commitPaths: [] })?.code).toBe('nothing')
    expect(pathRefusal(paths)).toBeNull()
  })

  it('refuses flagged files the user did not let in', () => {
    const flagged = [
      { path: 'k.pem', reason: 'blocked-path' as const, detail: 'a key', allowed: false },
      { path: 'x.ts', reason: 'secret' as const, detail: 'a token', allowed: true },
    ]
    expect(pathRefusal({ ...paths, flagged })).toMatchObject({ code: 'flagged', paths: ['k.pem'] })
  })
})
