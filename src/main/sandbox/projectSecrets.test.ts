import { mkdirSync, symlinkSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { memoryLogger } from '../workspace/logFile'
import { put, removeDir, tempDir } from '../tools/testkit'
import { findProjectSecrets } from './projectSecrets'

let dir: string
beforeEach(() => (dir = tempDir('ralph-project-secrets-')))
afterEach(() => removeDir(dir))

describe('findProjectSecrets', () => {
  it('finds credential stores, app data folders, token files and .env files at any depth, by real path', async () => {
    put(dir, 'home/.ssh/id_rsa', 'k')
    put(dir, 'home/.config/gh/hosts.yml', 'k')
    put(dir, 'home/.config/nvim/init.lua', 'fine')
    put(dir, 'data/ralph.db', 'db')
    put(dir, 'data/logs/a.log', 'x')
    put(dir, 'a/.npmrc', '//registry.npmjs.org/:_authToken=abc\n')
    put(dir, 'b/.npmrc', 'registry=https://example.test/\n')
    put(dir, '.env', 'A=1')
    put(dir, 'api/.env.production', 'A=1')
    put(dir, 'api/.env.example', 'A=')
    put(dir, 'node_modules/pkg/.env', 'skipped: dependencies are not walked')
    put(dir, '.ralph/snapshots.git/HEAD', 'ref')
    mkdirSync(join(dir, 'real-keys'))
    symlinkSync(join(dir, 'real-keys'), join(dir, '.aws'))
    const found = await findProjectSecrets(dir, memoryLogger())
    expect(found.hidden.map((h) => [h.path.slice(dir.length + 1), h.kind]).sort()).toEqual([
      ['a/.npmrc', 'file'],
      ['data', 'dir'],
      ['home/.config/gh', 'dir'],
      ['home/.ssh', 'dir'],
      ['real-keys', 'dir'],
    ])
    expect(found.envFiles.map((h) => h.path.slice(dir.length + 1)).sort()).toEqual([
      '.env',
      'api/.env.production',
    ])
  })
})
