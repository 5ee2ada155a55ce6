import { execFileSync } from 'node:child_process'
import { hash } from 'node:crypto'
import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { ShadowGit } from './git'
import { consolidatePacks } from './packMaintenance'
import { ObjectStore } from './objectStore'
import { removeDir, tempBareStore } from './testkit'

let dir: string
let gitDir: string
beforeEach(() => {
  ;({ dir, gitDir } = tempBareStore('ralph-packs-', 'store.git'))
})
afterEach(() => removeDir(dir))

const packs = (): number => readdirSync(join(gitDir, 'objects/pack')).filter((n) => n.endsWith('.idx')).length

/** Writes one pack of 100 blobs through the store, as a save of 100 changed files does. */
function writeBlobs(round: number): string[] {
  const store = new ObjectStore(gitDir)
  const names: string[] = []
  for (let i = 0; i < 100; i++) {
    const whole = Buffer.from(`blob ${`r${round} f${i}\n`.length}\0r${round} f${i}\n`)
    const sha = hash('sha1', whole, 'buffer')
    store.add(whole, sha)
    names.push(sha.toString('hex'))
  }
  store.flush()
  return names
}

describe('packs written by saves', () => {
  it('are merged once there are many, keeping every object', async () => {
    const all = Array.from({ length: 14 }, (_, round) => writeBlobs(round)).flat()
    expect(packs()).toBe(14)
    await consolidatePacks(new ShadowGit(gitDir, dir))
    expect(packs()).toBeLessThan(14)
    const check = execFileSync('git', [`--git-dir=${gitDir}`, 'cat-file', '--batch-check=%(objecttype)'], {
      input: all.join('\n') + '\n',
      encoding: 'utf8',
    })
    expect(check.trim().split('\n')).toEqual(all.map(() => 'blob'))
  })

  it('are left alone while there are few', async () => {
    writeBlobs(1)
    writeBlobs(2)
    await consolidatePacks(new ShadowGit(gitDir, dir))
    expect(packs()).toBe(2)
  })
})
