import { mkdirSync, symlinkSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { memoryLogger } from '../workspace/logFile'
import { put } from '../tools/testkit'
import { useTempDir } from '../workspace/testkit'
import { findProjectSecrets } from './projectSecrets'

const dir = useTempDir('ralph-project-secrets-')

describe('findProjectSecrets', () => {
  it('finds credential stores, app data folders, token files and .env files at any depth, by real path', async () => {
    put(dir.path, 'home/.ssh/id_rsa', 'k')
    put(dir.path, 'home/.config/gh/hosts.yml', 'k')
    put(dir.path, 'home/.config/nvim/init.lua', 'fine')
    put(dir.path, 'data/ralph.db', 'db')
    put(dir.path, 'data/logs/a.log', 'x')
    put(dir.path, 'a/.npmrc', '//registry.npmjs.org/:_authToken=abc\n')
    put(dir.path, 'b/.npmrc', 'registry=https://example.test/\n')
    put(dir.path, '.env', 'A=1')
    put(dir.path, 'api/.env.production', 'A=1')
    put(dir.path, 'api/.env.example', 'A=')
    put(dir.path, 'node_modules/pkg/.env', 'skipped: dependencies are not walked')
    put(dir.path, '.ralph/snapshots.git/HEAD', 'ref')
    mkdirSync(join(dir.path, 'real-keys'))
    symlinkSync(join(dir.path, 'real-keys'), join(dir.path, '.aws'))
    const found = await findProjectSecrets(dir.path, memoryLogger())
    expect(found.hidden.map((h) => [h.path.slice(dir.path.length + 1), h.kind]).sort()).toEqual([
      ['a/.npmrc', 'file'],
      ['data', 'dir'],
      ['home/.config/gh', 'dir'],
      ['home/.ssh', 'dir'],
      ['real-keys', 'dir'],
    ])
    expect(found.envFiles.map((h) => h.path.slice(dir.path.length + 1)).sort()).toEqual([
      '.env',
      'api/.env.production',
    ])
  })
})
