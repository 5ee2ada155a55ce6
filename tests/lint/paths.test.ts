// What eslint-rules/paths.js (shared by the lint rules and scripts/reroute-imports.ts) takes for a module.
import { describe, expect, it } from 'vitest'
import { crossing, indexSpecifier, isTestFile, moduleOf } from '../../eslint-rules/paths.js'

describe('moduleOf', () => {
  it('names domain modules, hosts and renderer features, with the path inside them', () => {
    expect(moduleOf('/r/src/main/snapshots/git/pack.ts')).toEqual({
      kind: 'domain',
      name: 'snapshots',
      root: '/r/src/main/snapshots',
      rest: 'git/pack',
    })
    expect(moduleOf('/r/src/main/api/core.ts')?.kind).toBe('host')
    expect(moduleOf('/r/src/main/electron/main.ts')?.kind).toBe('host')
    expect(moduleOf('/r/src/renderer/src/features/chat/Chat.tsx')).toMatchObject({
      kind: 'feature',
      rest: 'Chat',
    })
    expect(moduleOf('/r/src/main/loop')).toMatchObject({ name: 'loop', rest: '' })
  })
  it('knows nothing outside the modules', () => {
    expect(moduleOf('/r/src/shared/api/contract.ts')).toBeUndefined()
    expect(moduleOf('/r/src/renderer/src/app/App.tsx')).toBeUndefined()
    expect(moduleOf('C:\\r\\src\\main\\loop\\x.ts')?.name).toBe('loop')
  })
})

describe('crossing', () => {
  it('is the pair of modules a relative import leaves and enters', () => {
    const c = crossing('/r/src/main/loop/runTask.ts', '../snapshots/engine')
    expect([c?.from.name, c?.to.name, c?.to.rest]).toEqual(['loop', 'snapshots', 'engine'])
    expect(indexSpecifier('/r/src/main/loop/deep/x.ts', c!.to)).toBe('../../snapshots')
  })
  it('is undefined inside one module, for packages and for src/shared', () => {
    expect(crossing('/r/src/main/loop/runTask.ts', './decide')).toBeUndefined()
    expect(crossing('/r/src/main/loop/runTask.ts', 'zod')).toBeUndefined()
    expect(crossing('/r/src/main/loop/runTask.ts', '../../shared/task')).toBeUndefined()
  })
})

it('isTestFile: tests, testkits and the renderer test folder', () => {
  expect(isTestFile('/r/src/main/loop/decide.test.ts')).toBe(true)
  expect(isTestFile('/r/src/main/tools/testkit.ts')).toBe(true)
  expect(isTestFile('/r/src/renderer/src/test/fixtures.ts')).toBe(true)
  expect(isTestFile('/r/src/main/loop/decide.ts')).toBe(false)
})
