import { mkdirSync, symlinkSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { makeTempDir } from '../../../tests/helpers/tempDir'
import { assertProjectId } from './laneFolder'
import { laneProjectId } from './projectKey'

let tmp: { path: string; cleanup(): void }
beforeEach(() => (tmp = makeTempDir('ralph-lane-key-')))
afterEach(() => tmp.cleanup())

const dir = (name: string): string => {
  const p = join(tmp.path, name)
  mkdirSync(p, { recursive: true })
  return p
}

describe('laneProjectId', () => {
  it('is stable for a folder, the same through a symlink, and different for another folder of the same name', () => {
    const a = dir('one/my-app')
    const b = dir('two/my-app')
    symlinkSync(a, join(tmp.path, 'link'))
    const id = laneProjectId(a)
    expect(id).toMatch(/^my-app-[0-9a-f]{16}$/)
    expect(laneProjectId(a)).toBe(id)
    expect(laneProjectId(join(tmp.path, 'link'))).toBe(id)
    expect(laneProjectId(b)).not.toBe(id)
  })

  it('is a valid lane folder name whatever the folder is called', () => {
    for (const name of ['My App (copy)', '.hidden', '___', 'ünïcødé', 'x'.repeat(200), '-dash', 'a b-']) {
      const id = laneProjectId(dir(name))
      expect(() => assertProjectId(id)).not.toThrow()
      expect(id.length).toBeLessThanOrEqual(64)
    }
    expect(laneProjectId(dir('My App (copy)'))).toMatch(/^My-App-copy-[0-9a-f]{16}$/)
    expect(laneProjectId(dir('___'))).toMatch(/^project-[0-9a-f]{16}$/)
  })

  it('refuses a folder that does not exist', () => {
    expect(() => laneProjectId(join(tmp.path, 'nope'))).toThrow(/ENOENT/)
  })
})
