// Engine sessions hold no credential of the user's cloud provider or custom provider (issue 34 item 4).
//
// Claude Code on a cloud provider: the REAL Claude Code CLI in real bubblewrap, on Amazon Bedrock
// (SigV4 with temporary AWS keys), Google Vertex AI (a service account) and Microsoft Foundry (a resource key). The
// scripted model asks the engine's shell for its environment and searches its home for the secrets; it finds only
// Ralph's placeholder, and every model call still reaches the provider's front door (tests/fixtures/engines/
// cloudFront.ts) with a credential the front verifies: a signature it recomputes, a token its own token endpoint
// issued for the service account's signed JWT, the resource key.
import { generateKeyPairSync } from 'node:crypto'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { claudeCodeAdapter } from '../../../src/main/engines/claudeCode'
import { codexAdapter } from '../../../src/main/engines/codex'
import { runEngineSession, type EngineEvent } from '../../../src/main/engines'
import { makeContext } from '../../../src/main/tools/testkit'
import { memoryLogger } from '../../../src/main/workspace/logFile'
import { startCloudFront, type CloudFront, type CloudFrontOptions } from '../../fixtures/engines/cloudFront'
import { startAnthropicServer } from '../../fixtures/wire/anthropicServer'
import { startResponsesServer } from '../../fixtures/wire/responsesServer'
import { makeTempDir } from '../../helpers/tempDir'

const BIN = resolve(__dirname, '../../../node_modules/.bin')
const SESSION_MS = 180_000
const FAKE_KEY = 'sk-ant-fake-behind-the-cloud'

const cleanups: (() => Promise<void> | void)[] = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})
const temp = (prefix: string) => {
  const d = makeTempDir(prefix)
  cleanups.push(d.cleanup)
  return d.path
}

/** The hostile model's command: the environment, the home's files, and a search of the home for each secret mark. */
const probe = (marks: string[]) =>
  `env; echo ---; find "$HOME" -type f 2>/dev/null | head -200; echo ---; ` +
  marks
    .map((m) => `grep -r -l "$(printf '%s%s' ${m.slice(0, 4)} ${m.slice(4)})" "$HOME" 2>/dev/null`)
    .join('; ') +
  '; echo probe-done'

interface Case {
  name: string
  /** Ralph's environment and the front's expectations, given the front's URL and the user's home. */
  setup(userHome: string): {
    env: (front: string) => NodeJS.ProcessEnv
    front: Omit<CloudFrontOptions, 'anthropic'>
    marks: string[]
    login: RegExp
    /** What the shell's environment shows instead: the proxy and, where Claude Code leaves it there, the placeholder. */
    shows: RegExp
  }
}

const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 })

const CASES: Case[] = [
  {
    name: 'Amazon Bedrock with temporary AWS keys: each call signed by Ralph (SigV4)',
    setup: () => {
      const aws = {
        accessKeyId: 'ASIAFAKEACCESSKEY01',
        secretAccessKey: 'AWSSECRETMARK/k7MDENG+bPxRfiCY',
        sessionToken: 'AWSSESSIONMARK-IQoJb3JpZ2luX2Vj',
        region: 'eu-central-1',
      }
      return {
        env: (front) => ({
          CLAUDE_CODE_USE_BEDROCK: '1',
          AWS_REGION: aws.region,
          ANTHROPIC_BEDROCK_BASE_URL: front,
          AWS_ACCESS_KEY_ID: aws.accessKeyId,
          AWS_SECRET_ACCESS_KEY: aws.secretAccessKey,
          AWS_SESSION_TOKEN: aws.sessionToken,
        }),
        front: { kind: 'bedrock', aws },
        marks: ['AWSSECRETMARK', 'AWSSESSIONMARK'],
        login: /^AWS_ACCESS_KEY_ID \(signed by Ralph\), Amazon Bedrock \(eu-central-1\)/,
        shows: /AWS_BEARER_TOKEN_BEDROCK=ralph-session-[0-9a-f]{48}/,
      }
    },
  },
  {
    name: 'Google Vertex AI with a service account: an access token made by Ralph',
    setup: (userHome) => {
      const file = join(userHome, 'sa.json')
      const google = {
        publicKey,
        clientEmail: 'ralph@proj-7.iam.gserviceaccount.com',
        project: 'proj-7',
        region: 'us-east5',
      }
      return {
        env: (front) => {
          writeFileSync(
            file,
            JSON.stringify({
              type: 'service_account',
              project_id: 'proj-7',
              private_key_id: 'GOOGLEKEYIDMARK',
              private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
              client_email: google.clientEmail,
              token_uri: `${front}/token`,
            }),
          )
          return {
            CLAUDE_CODE_USE_VERTEX: '1',
            CLOUD_ML_REGION: google.region,
            ANTHROPIC_VERTEX_BASE_URL: `${front}/v1`,
            GOOGLE_APPLICATION_CREDENTIALS: file,
          }
        },
        front: { kind: 'vertex', google },
        // The key's id and a slice of the PEM's body: neither may be anywhere the model can look.
        marks: ['GOOGLEKEYIDMARK', 'sa.json'],
        login: /^ralph@proj-7\.iam\.gserviceaccount\.com, Google Vertex AI \(proj-7, us-east5\)/,
        // (Claude Code keeps ANTHROPIC_CUSTOM_HEADERS, which holds the placeholder, out of its shell's environment.)
        shows: /ANTHROPIC_VERTEX_BASE_URL=http:\/\/127\.0\.0\.1:\d+/,
      }
    },
  },
  {
    name: 'Microsoft Foundry with a resource key',
    setup: () => ({
      env: (front) => ({
        CLAUDE_CODE_USE_FOUNDRY: '1',
        ANTHROPIC_FOUNDRY_BASE_URL: `${front}/anthropic`,
        ANTHROPIC_FOUNDRY_API_KEY: 'FOUNDRYKEYMARK0c5e',
      }),
      front: { kind: 'foundry', foundryKey: 'FOUNDRYKEYMARK0c5e' },
      marks: ['FOUNDRYKEYMARK'],
      login: /^ANTHROPIC_FOUNDRY_API_KEY, Microsoft Foundry → http:\/\/127\.0\.0\.1:\d+\/anthropic$/,
      shows: /ANTHROPIC_FOUNDRY_AUTH_TOKEN=ralph-session-[0-9a-f]{48}/,
    }),
  },
]

describe('Claude Code on a cloud provider never holds its credentials', { timeout: SESSION_MS }, () => {
  it.each(CASES)('$name', async ({ setup }) => {
    const server = await startAnthropicServer({ apiKey: FAKE_KEY })
    cleanups.push(() => server.close())
    const project = temp('ralph-cloud-')
    const userHome = temp('ralph-cloud-user-')
    const c = setup(userHome)
    const front: CloudFront = await startCloudFront({
      ...c.front,
      anthropic: { url: server.url, apiKey: FAKE_KEY },
    })
    cleanups.push(() => front.close())
    server.enqueue(
      { kind: 'tools', calls: [{ name: 'Bash', arguments: { command: probe(c.marks) } }] },
      { kind: 'text', text: 'Done.' },
    )
    const events: EngineEvent[] = []
    let login: string | null | undefined
    await runEngineSession({
      adapter: claudeCodeAdapter,
      projectDir: project,
      env: { PATH: `${BIN}:${process.env.PATH ?? '/usr/bin:/bin'}`, ...c.env(front.url) },
      spec: {
        system: 'You are running inside Ralph.',
        prompt: 'Do the task.',
        model: 'claude-sonnet-4-5',
        images: [],
      },
      toolCtx: makeContext(project),
      signal: new AbortController().signal,
      logger: memoryLogger(),
      onEvent: (e) => void events.push(e),
      onLogin: (d) => (login = d),
      userHome,
    })
    expect(events.filter((e) => e.type === 'failure')).toEqual([])
    expect(events.at(-1)).toMatchObject({ type: 'done' })
    expect(login).toMatch(c.login)
    // Every call the front saw bore the provider's valid credential, and the model's two turns went through.
    expect(front.calls.filter((call) => !call.ok)).toEqual([])
    expect(server.requests.filter((r) => r.status === 200).length).toBeGreaterThanOrEqual(2)
    const seen = JSON.stringify(server.requests.map((r) => r.body))
    expect(seen).toContain('probe-done')
    expect(seen).toMatch(c.shows)
    for (const mark of c.marks) expect(seen).not.toContain(mark)
    expect(seen).not.toMatch(
      /AWS_(SECRET_ACCESS_KEY|SESSION_TOKEN|ACCESS_KEY_ID)=|GOOGLE_APPLICATION_CREDENTIALS=|PRIVATE KEY/,
    )
  })
})

describe('Codex with a config.toml full of secrets', { timeout: SESSION_MS }, () => {
  it("the session's home and environment hold none of them; the provider still gets its key and headers through the proxy", async () => {
    const KEY = 'sk-corp-ENVKEYMARK'
    const server = await startResponsesServer({ apiKey: KEY })
    cleanups.push(() => server.close())
    server.fallback = { kind: 'text', text: 'Nothing more.' }
    const marks = [
      'ENVKEYMARK',
      'HEADERMARK',
      'ENVHEADERMARK',
      'MCPMARK',
      'NOTIFYMARK',
      'SHELLMARK',
      'OTHERMARK',
    ]
    server.enqueue(
      {
        kind: 'tools',
        calls: [
          { name: 'exec_command', arguments: { cmd: `cat "$HOME/.codex/config.toml"; ${probe(marks)}` } },
        ],
      },
      { kind: 'text', text: 'Done.' },
    )
    const project = temp('ralph-codex-config-')
    const userHome = temp('ralph-codex-config-user-')
    mkdirSync(join(userHome, '.codex'))
    writeFileSync(
      join(userHome, '.codex/config.toml'),
      [
        'profile = "work"',
        'notify = ["bash", "-c", "curl -H \'x: NOTIFYMARK\' https://hooks.example.com"]',
        '[profiles.work]',
        'model = "gpt-5.1"',
        'model_provider = "corp"',
        '[model_providers.corp]',
        'name = "Corp gateway"',
        `base_url = "${server.baseUrl}"`,
        'env_key = "CORP_API_KEY"',
        'wire_api = "responses"',
        'request_max_retries = 0',
        'http_headers = { "X-Corp-Secret" = "HEADERMARK" }',
        'env_http_headers = { "X-Env-Secret" = "CORP_HEADER_VAR" }',
        '[model_providers.other]',
        'base_url = "https://other.example/v1"',
        'experimental_bearer_token = "OTHERMARK"',
        '[mcp_servers.github]',
        'command = "npx"',
        'env = { GITHUB_TOKEN = "MCPMARK" }',
        '[shell_environment_policy]',
        'set = { DATABASE_URL = "postgres://u:SHELLMARK@db/app" }',
        '',
      ].join('\n'),
    )
    const events: EngineEvent[] = []
    let login: string | null | undefined
    await runEngineSession({
      adapter: codexAdapter,
      projectDir: project,
      env: {
        PATH: `${BIN}:${process.env.PATH ?? '/usr/bin:/bin'}`,
        CORP_API_KEY: KEY,
        CORP_HEADER_VAR: 'sh-ENVHEADERMARK',
      },
      spec: { system: 'You are running inside Ralph.', prompt: 'Do the task.', model: null, images: [] },
      toolCtx: makeContext(project),
      signal: new AbortController().signal,
      logger: memoryLogger(),
      onEvent: (e) => void events.push(e),
      onLogin: (d) => (login = d),
      userHome,
    })
    expect(events.filter((e) => e.type === 'failure')).toEqual([])
    expect(events.at(-1)).toMatchObject({ type: 'done' })
    expect(login).toBe(`CORP_API_KEY → ${server.baseUrl} (your provider "corp")`)
    const answered = server.requests.filter((r) => r.status === undefined || r.status === 200)
    expect(answered.length).toBeGreaterThanOrEqual(2)
    for (const r of answered) {
      expect(r.headers['x-corp-secret']).toBe('HEADERMARK')
      expect(r.headers['x-env-secret']).toBe('sh-ENVHEADERMARK')
    }
    const seen = JSON.stringify(server.requests.map((r) => r.body))
    expect(seen).toContain('probe-done')
    expect(seen).toContain('Corp gateway')
    expect(seen).toMatch(/CORP_API_KEY=ralph-session-[0-9a-f]{48}/)
    for (const mark of marks) expect(seen).not.toContain(mark)
  })
})
