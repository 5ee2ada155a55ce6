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

  it('covers what the one blocked-paths list names, whatever the case: *.env with the .env files, keys always', async () => {
    put(dir.path, 'prod.env', 'A=1')
    put(dir.path, 'deploy/PROD.ENV', 'A=1')
    put(dir.path, 'certs/Server.PEM', 'k')
    put(dir.path, 'certs/tls.key', 'k')
    put(dir.path, 'certs/client.P12', 'k')
    put(dir.path, 'certs/client.pfx', 'k')
    put(dir.path, 'keys/id_rsa', 'k')
    put(dir.path, 'keys/id_ed25519', 'k')
    put(dir.path, 'keys/id_rsa.pub', 'public: fine')
    put(dir.path, 'src/env.ts', 'fine')
    const found = await findProjectSecrets(dir.path, memoryLogger())
    expect(found.hidden.map((h) => h.path.slice(dir.path.length + 1)).sort()).toEqual([
      'certs/Server.PEM',
      'certs/client.P12',
      'certs/client.pfx',
      'certs/tls.key',
      'keys/id_ed25519',
      'keys/id_rsa',
    ])
    expect(found.envFiles.map((h) => h.path.slice(dir.path.length + 1)).sort()).toEqual([
      'deploy/PROD.ENV',
      'prod.env',
    ])
  })
})
