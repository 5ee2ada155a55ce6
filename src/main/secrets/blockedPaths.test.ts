import { describe, expect, it } from 'vitest'
import { BLOCKED_PATHS, blockedPathRule, blockedPathRules } from './blockedPaths'

/** Each rule: paths it must block (case variants and depth included) and near misses it must let through. */
const CASES: Record<string, { blocked: string[]; allowed: string[] }> = {
  '.git/': {
    blocked: ['.git/config', 'vendor/lib/.git/HEAD', '.GIT/hooks/pre-commit', 'sub/.git'],
    allowed: ['docs/.gitignore', '.gitattributes', '.github/workflows/ci.yml', 'src/git.ts'],
  },
  '.ssh/': {
    blocked: ['.ssh/config', 'home/.SSH/authorized_keys'],
    allowed: ['src/ssh.ts', 'docs/.sshrc.md'],
  },
  '.aws/': { blocked: ['.aws/credentials', 'u/.AWS/config'], allowed: ['src/aws/client.ts', 'aws.md'] },
  '.gnupg/': { blocked: ['.gnupg/pubring.kbx', '.GnuPG/gpg.conf'], allowed: ['gnupg.md'] },
  '.config/gh/': {
    blocked: ['.config/gh/hosts.yml', 'home/.Config/GH/config.yml'],
    allowed: ['.config/app.json', 'src/gh/.config'],
  },
  '.docker/config.json': {
    blocked: ['.docker/config.json', 'home/.DOCKER/Config.JSON'],
    allowed: ['.docker/daemon.json', 'docker/config.json', '.docker/config.json.md'],
  },
  '.env': { blocked: ['.env', 'deploy/.ENV', 'app/.Env'], allowed: ['src/env.ts', 'environment.ts'] },
  '.env.*': {
    blocked: ['.env.local', 'app/.env.production', '.ENV.Local', '.env.example.bak'],
    allowed: [
      '.env.example',
      '.env.sample',
      '.env.template',
      '.ENV.EXAMPLE',
      'app/.env.local.example',
      '.env.production.Template',
    ],
  },
  '*.env': {
    blocked: ['prod.env', 'config/Staging.ENV', 'a.b.env'],
    allowed: ['prod.env.example', 'env', 'src/env.d.ts', 'my.envelope'],
  },
  '.envrc': { blocked: ['.envrc', 'sub/.ENVRC'], allowed: ['envrc.md'] },
  '*.pem': {
    blocked: ['certs/server.pem', 'keys/server.PEM', 'ca.Pem'],
    allowed: ['pem.ts', 'server.pem.md', 'src/pemParser.ts'],
  },
  '*.key': { blocked: ['id.key', 'tls/Server.KEY'], allowed: ['src/keyboard.ts', 'key.ts', 'a.keys'] },
  '*.p12': { blocked: ['cert.p12', 'x/Cert.P12'], allowed: ['p12.md', 'a.p12x'] },
  '*.pfx': { blocked: ['cert.pfx', 'CERT.PFX'], allowed: ['pfx.ts'] },
  'id_rsa*': {
    blocked: ['id_rsa', '.ssh2/ID_RSA', 'keys/id_rsa_old'],
    allowed: ['id_rsa.pub', 'keys/ID_RSA.PUB'],
  },
  'id_ed25519*': {
    blocked: ['id_ed25519', 'id_ed25519_sk'],
    allowed: ['id_ed25519.pub', 'ID_ED25519_SK.PUB'],
  },
  'id_ecdsa*': { blocked: ['id_ecdsa', 'ID_ECDSA'], allowed: ['id_ecdsa.pub'] },
  'id_dsa*': { blocked: ['id_dsa', 'backup/Id_Dsa'], allowed: ['id_dsa.pub', 'id_dsl.txt'] },
  'credentials*': {
    blocked: [
      'credentials',
      'credentials.json',
      'config/Credentials.yml',
      'CREDENTIALS.txt',
      'credentials.ini',
      'credentials.json.bak',
    ],
    // Code and docs about credentials are ordinary source files (the secrets check reads what they hold).
    allowed: [
      'src/auth/credentials.ts',
      'src/credentials.test.ts',
      'lib/Credentials.py',
      'credentials.go',
      'docs/credentials.md',
      'src/myCredentials.json',
    ],
  },
  'secrets.y*ml': {
    blocked: ['config/secrets.yml', 'secrets.yaml', 'SECRETS.YML', 'config/secrets.production.yml'],
    allowed: ['secrets.example.yml', 'secrets.ts', 'config/app-secrets.md', 'secrets.json.md'],
  },
  '.netrc': { blocked: ['.netrc', 'home/_netrc', '.NETRC'], allowed: ['netrc.md', '.netrc.ts'] },
}

describe('blockedPathRule', () => {
  it('has a test case for every rule', () => {
    expect(Object.keys(CASES).sort()).toEqual(BLOCKED_PATHS.map((p) => p.rule).sort())
  })

  for (const [rule, { blocked, allowed }] of Object.entries(CASES)) {
    it(`${rule}: blocks ${blocked.join(', ')}`, () => {
      for (const path of blocked) expect([path, blockedPathRule(path)]).toEqual([path, rule])
    })
    it(`${rule}: lets ${allowed.join(', ')} through`, () => {
      for (const path of allowed) expect([path, blockedPathRule(path)]).toEqual([path, null])
    })
  }

  it('treats .npmrc and .pypirc as configuration: the secrets check looks for tokens in them', () => {
    expect(blockedPathRule('.npmrc')).toBeNull()
    expect(blockedPathRule('.pypirc')).toBeNull()
  })

  it('reads Windows separators and a leading ./ the same way', () => {
    expect(blockedPathRule('./.env')).toBe('.env')
    expect(blockedPathRule('deploy\\.ssh\\id')).toBe('.ssh/')
  })

  it('lists every rule for the verdict text', () => {
    expect(blockedPathRules()).toBe(BLOCKED_PATHS.map((p) => p.rule).join(', '))
  })
})
