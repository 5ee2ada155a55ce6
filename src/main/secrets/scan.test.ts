import { generateKeyPairSync, randomBytes } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { scanAddedLines, type SecretFinding } from './scan'

/** Scans one file whose added lines are `lines`, numbered from `first`. */
const scan = (path: string, lines: string[], first = 1): Promise<SecretFinding[]> =>
  scanAddedLines([{ path, added: lines.map((text, i) => ({ line: first + i, text })) }])

const kinds = async (path: string, lines: string[]) => (await scan(path, lines)).map((f) => f.kind)

// Shapes as the providers issue them (random, so no real key is in this file).
const AWS_SECRET = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYzQ9mR2kXaB'
const GITHUB = `ghp_${'a1B2'.repeat(9)}`
const OPENAI = `sk-proj-${'Ab3_'.repeat(14)}Ab${'T3BlbkFJ'}${'Zq7-'.repeat(14)}Zq`
const ANTHROPIC = `sk-ant-api03-${'Qw9_e'.repeat(18)}Qw9AA`
const SLACK = 'xoxb-2384719230-4829103847561-Ab12Cd34Ef56Gh78Ij90Kl12'
const GOOGLE = `AIza${'Sy9fK2'.repeat(5)}Lm3Qx`
const STRIPE = `sk_live_${'4eC39HqLyjWDarjtT1zdp7dc'}`
const NPM = `npm_${'x7Yk'.repeat(9)}`

describe('scanAddedLines: what the recommended preset (and its supplement) finds', () => {
  it.each([
    ['src/a.ts', 'const k = "AKIAQ3ZLMN4PRT7XVW2Y"', 'AWS access key id'],
    ['config/secrets.yml', `aws_secret_access_key: ${AWS_SECRET}`, 'AWS secret access key'],
    ['src/a.py', `AWS_SECRET_ACCESS_KEY = "${AWS_SECRET}"`, 'AWS secret access key'],
    // The preset's rule needs a letter or digit last; the supplement covers keys ending in + or /.
    ['deploy.sh', `export AWS_SECRET_ACCESS_KEY=${AWS_SECRET.slice(0, -1)}+`, 'AWS secret access key'],
    ['ci.yml', `token: ${GITHUB}`, 'GitHub token'],
    ['.env.example', `OPENAI_API_KEY=${OPENAI}`, 'OpenAI API key'],
    ['src/c.ts', `const key = "${ANTHROPIC}"`, 'Anthropic API key'],
    ['bot.js', `const slack = '${SLACK}'`, 'Slack token'],
    ['web/maps.js', `const maps = "${GOOGLE}"`, 'Google API key'],
    ['pay.rb', `Stripe.api_key = "${STRIPE}"`, 'Stripe secret key'],
    ['scripts/publish.sh', `NPM_TOKEN=${NPM}`, 'npm access token'],
    ['.npmrc', '//registry.npmjs.org/:_authToken=abcd1234efgh5678', 'registry credential'],
    ['.npmrc', '//npm.example.com/:_password=c2VjcmV0cGFzcw==', 'registry credential'],
    ['.pypirc', 'password = pypi-AgEIcHlwaS5vcmcCJDk2', 'registry credential'],
    [
      'db.ts',
      'const url = "postgres://app:Str0ngPassw0rd@db.internal:5432/app"',
      'database URL with a password',
    ],
  ])('%s: %s is a %s', async (path, line, kind) => {
    expect(await kinds(path, [line])).toEqual([kind])
  })

  it('finds a private key added as a block, on its BEGIN line', async () => {
    const { privateKey } = generateKeyPairSync('rsa', {
      modulusLength: 2048,
      privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
      publicKeyEncoding: { type: 'spki', format: 'pem' },
    })
    const lines = ['export const key = `', ...privateKey.trim().split('\n'), '`']
    const found = await scan('src/key.ts', lines, 10)
    expect(found).toEqual([
      { path: 'src/key.ts', line: 11, kind: 'private key', preview: expect.any(String) },
    ])
  })

  it.each([
    [
      'an Ed25519 key (PKCS#8)',
      () => generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }),
    ],
    [
      'an encrypted key',
      () =>
        generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({
          type: 'pkcs8',
          format: 'pem',
          cipher: 'aes-256-cbc',
          passphrase: 'pass phrase',
        }),
    ],
    [
      'a PGP key block',
      () =>
        [
          '-----BEGIN PGP PRIVATE KEY BLOCK-----',
          'Comment: exported',
          '',
          ...(randomBytes(192)
            .toString('base64')
            .match(/.{1,64}/g) ?? []),
          '=Ab1c',
          '-----END PGP PRIVATE KEY BLOCK-----',
        ].join('\n'),
    ],
  ])('finds %s, which the preset alone lets through', async (_, key) => {
    const pem = String(key()).trim()
    expect(await kinds('config/key.txt', ['key: |', ...pem.split('\n')])).toEqual(['private key'])
  })

  it('lets placeholders, environment lookups, documentation samples and ordinary text through', async () => {
    const lines = [
      'const apiKey = "your-api-key-goes-here"',
      'const password = "aaaaaaaaaaaaaaaaaaaa"',
      'const token = process.env.TOKEN',
      'const label = "a perfectly ordinary sentence"',
      'aws_access_key_id = AKIAIOSFODNN7EXAMPLE',
      'aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
      'aws_account_id = 123456789012',
      'OPENAI_API_KEY=sk-...',
      'url = "postgres://localhost:5432/app"',
    ]
    expect(await scan('src/config.ts', lines)).toEqual([])
    expect(
      await scan('.npmrc', ['registry=https://registry.npmjs.org/', '//r/:_authToken=${NPM_TOKEN}']),
    ).toEqual([])
    expect(await scan('.pypirc', ['[pypi]', 'username = __token__', 'password = ${PYPI_TOKEN}'])).toEqual([])
  })

  it('is better than the old hand-kept list at placeholders: a key header with no real key body is not a key', async () => {
    // The old list flagged any BEGIN … PRIVATE KEY line; the preset wants a body that decodes like a key.
    const lines = ['-----BEGIN OPENSSH PRIVATE KEY-----', '...', '-----END OPENSSH PRIVATE KEY-----']
    expect(await scan('docs/keys.md', lines)).toEqual([])
    const filler = [
      '-----BEGIN PRIVATE KEY-----',
      'A'.repeat(64),
      'A'.repeat(64),
      '-----END PRIVATE KEY-----',
    ]
    expect(await scan('docs/keys.md', filler)).toEqual([])
  })

  it('does not obey secretlint-disable comments: the model writes the code it checks', async () => {
    const found = await kinds('src/a.ts', [
      '// secretlint-disable',
      `const t = "${GITHUB}" // secretlint-disable-line`,
      '// secretlint-enable',
    ])
    expect(found).toEqual(['GitHub token'])
  })

  it('never joins added lines that are apart in the file into one secret', async () => {
    const found = await scanAddedLines([
      {
        path: 'config/secrets.yml',
        added: [
          { line: 3, text: 'aws_secret_access_key:' },
          { line: 9, text: AWS_SECRET },
        ],
      },
    ])
    expect(found).toEqual([])
    // The same two lines next to each other are one key and its value (YAML allows it).
    expect(await kinds('config/secrets.yml', ['aws_secret_access_key:', `  ${AWS_SECRET}`])).toEqual([
      'AWS secret access key',
    ])
  })

  it('reports file and line of each finding in file order, and never the secret itself', async () => {
    const findings = await scanAddedLines([
      {
        path: 'src/a.ts',
        added: [
          { line: 3, text: 'ok' },
          { line: 4, text: 'AKIAQ3ZLMN4PRT7XVW2Y' },
          { line: 120, text: `const gh = "${GITHUB}"` },
        ],
      },
      { path: 'README.md', added: [{ line: 1, text: '# hi' }] },
      { path: 'config/secrets.yml', added: [{ line: 2, text: `  aws_secret_access_key: ${AWS_SECRET}` }] },
    ])
    expect(findings).toEqual([
      { path: 'src/a.ts', line: 4, kind: 'AWS access key id', preview: 'AKIA…2Y (20 chars)' },
      { path: 'src/a.ts', line: 120, kind: 'GitHub token', preview: 'ghp_…B2 (40 chars)' },
      { path: 'config/secrets.yml', line: 2, kind: 'AWS secret access key', preview: 'wJal…aB (40 chars)' },
    ])
    const text = JSON.stringify(findings)
    for (const secret of ['AKIAQ3ZLMN4PRT7XVW2Y', GITHUB, AWS_SECRET]) expect(text).not.toContain(secret)
  })

  it('returns nothing for files without added lines, without loading the rules', async () => {
    expect(await scanAddedLines([{ path: 'a.bin', added: [] }])).toEqual([])
  })
})
