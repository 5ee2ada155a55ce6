import { describe, expect, it } from 'vitest'
import { customProviderLogin } from './login'
import { configuredCodexModel } from './model'
import { codexSelection, readTomlTables, sessionCodexConfig } from './sessionConfig'

/** A config.toml as a user may really have it: every place Codex reads a secret from holds one (…MARK). */
const SECRET_CONFIG = `
model = "gpt-5.1" # the usual
profile = 'work'
model_reasoning_effort = "high"
notify = ["bash", "-c", "curl -H 'x: NOTIFYMARK' https://hooks.example.com"]
openai_base_url = "https://api.example.com/v1?key=URLMARK"
experimental_bearer_token = "TOPBEARERMARK"

[profiles.work]
model_provider = "corp"
model = "corp-model-1"

[profiles.other]
model = "OTHERPROFILEMARK"

[model_providers.corp]
name = "Corp gateway"
base_url = "https://llm.corp.example/v1"
env_key = "CORP_API_KEY"
wire_api = "responses"
experimental_bearer_token = "BEARERMARK"
http_headers = { "X-Corp-Secret" = "HEADERMARK", "X-Team" = "core" }
env_http_headers = { "X-Env-Secret" = "CORP_HEADER_VAR" }
query_params = { "api-version" = "2025-04-01-preview" }
stream_max_retries = 3

[model_providers.other]
base_url = "https://other.example/v1"
http_headers = { Authorization = "Bearer OTHERPROVIDERMARK" }

[mcp_servers.github]
command = "npx"
args = ["-y", "@modelcontextprotocol/server-github"]
env = { GITHUB_PERSONAL_ACCESS_TOKEN = "MCPMARK" }

[mcp_servers.github.env]
GITHUB_TOKEN = "MCPTABLEMARK"

[shell_environment_policy]
set = { DATABASE_URL = "postgres://u:SHELLMARK@db/app" }

[features]
enable_request_compression = false
web_search_request = true
secret_flag = "FEATUREMARK"

[projects."/home/u/app"]
trust_level = "trusted"
`

describe("a Codex session's config.toml", () => {
  it('keeps the model settings and the selected provider’s plain fields, and no secret', () => {
    const session = sessionCodexConfig(SECRET_CONFIG)
    expect(session).not.toMatch(/MARK/)
    expect(session).not.toMatch(
      /mcp_servers|notify|shell_environment_policy|projects|profile|openai_base_url/,
    )
    const kept = readTomlTables(session)
    expect(kept['']).toEqual({
      model: 'corp-model-1',
      model_provider: 'corp',
      model_reasoning_effort: 'high',
    })
    expect(kept.features).toEqual({ enable_request_compression: false, web_search_request: true })
    expect(kept['model_providers.corp']).toEqual({
      name: 'Corp gateway',
      base_url: 'https://llm.corp.example/v1',
      env_key: 'CORP_API_KEY',
      wire_api: 'responses',
      stream_max_retries: 3,
      query_params: { 'api-version': '2025-04-01-preview' },
    })
    expect(kept['model_providers.other']).toBeUndefined()
    expect(configuredCodexModel(session)).toBe('corp-model-1')
  })

  it("routes the provider's key, bearer token and headers through the proxy; the session gets placeholders", async () => {
    const login = customProviderLogin(
      {
        env: { CORP_API_KEY: 'ENVKEYMARK', CORP_HEADER_VAR: 'ENVHEADERMARK' },
        userHome: '/nowhere',
        provider: null,
      },
      SECRET_CONFIG,
    )!
    expect(login.upstream).toBe('https://llm.corp.example/v1')
    expect(await login.authHeaders()).toEqual({ authorization: 'Bearer ENVKEYMARK' })
    expect(login.extraHeaders).toEqual({
      'x-corp-secret': 'HEADERMARK',
      'x-team': 'core',
      'x-env-secret': 'ENVHEADERMARK',
    })
    const session = login.session({ url: 'http://127.0.0.1:9', placeholder: 'ralph-session-p' })
    expect(session).toEqual({
      env: { CORP_API_KEY: 'ralph-session-p' },
      args: ['-c', 'model_providers.corp.base_url="http://127.0.0.1:9"'],
      files: {},
    })
  })

  it('a provider with only a bearer token in its config, and one that puts other query parameters in its URL', () => {
    const bearer =
      'model_provider = "b"\n[model_providers.b]\nbase_url = "https://b.example/v1"\nexperimental_bearer_token = "BMARK"\n'
    const login = customProviderLogin({ env: {}, userHome: '/nowhere', provider: null }, bearer)!
    expect(login.session({ url: 'http://127.0.0.1:9', placeholder: 'ralph-session-p' }).args).toEqual([
      '-c',
      'model_providers.b.base_url="http://127.0.0.1:9"',
      '-c',
      'model_providers.b.experimental_bearer_token="ralph-session-p"',
    ])
    expect(sessionCodexConfig(bearer)).not.toContain('BMARK')
    const query = `${bearer}query_params = { key = "QMARK" }\n`
    expect(() => customProviderLogin({ env: {}, userHome: '/nowhere', provider: null }, query)).toThrow(
      /query parameters \(key\).*env_key or http_headers/,
    )
    expect(codexSelection(query).provider.query_params).toEqual({ key: 'QMARK' })
  })
})
