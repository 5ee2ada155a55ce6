import { createServer, type IncomingHttpHeaders } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { memoryLogger } from '../../workspace/logFile'
import { startCredentialProxy } from '../credentialProxy'
import type { EngineLogin } from '../types'
import { bedrockLogin, claudeCloudLogin, foundryLogin, selectedCloud } from './cloudLogin'

const AWS = {
  AWS_ACCESS_KEY_ID: 'AKIAEXAMPLEKEYID',
  AWS_SECRET_ACCESS_KEY: 'SECRETMARK/abc',
  AWS_SESSION_TOKEN: 'SESSIONMARK',
}
const ctx = (env: NodeJS.ProcessEnv) => ({ env, userHome: '/nonexistent-home', provider: null })
const closers: (() => Promise<void> | void)[] = []
afterEach(async () => {
  for (const c of closers.splice(0)) await c()
})

/** What the session would get: the login's environment and files with the proxy's URL and placeholder. */
const sessionOf = (login: EngineLogin) =>
  login.session({ url: 'http://127.0.0.1:1', placeholder: 'ralph-session-x' })

describe('claudeCloudLogin', () => {
  it('selects the provider as Claude Code reads its switches, and refuses those it cannot proxy', () => {
    expect(selectedCloud({ CLAUDE_CODE_USE_BEDROCK: 'true' })).toBe('bedrock')
    expect(selectedCloud({ CLAUDE_CODE_USE_VERTEX: '0', CLAUDE_CODE_USE_FOUNDRY: '1' })).toBe('foundry')
    expect(selectedCloud({ CLAUDE_CODE_USE_BEDROCK: '' })).toBeNull()
    expect(() => selectedCloud({ CLAUDE_CODE_USE_MANTLE: '1' })).toThrow(
      /CLAUDE_CODE_USE_MANTLE is set.*Unset it/,
    )
  })

  it('gives the session a placeholder and the proxy, never a cloud credential', async () => {
    const bedrock = bedrockLogin({ CLAUDE_CODE_USE_BEDROCK: '1', AWS_REGION: 'eu-west-1', ...AWS })
    expect(bedrock.upstream).toBe('https://bedrock-runtime.eu-west-1.amazonaws.com')
    expect(sessionOf(bedrock).env).toEqual({
      CLAUDE_CODE_USE_BEDROCK: '1',
      AWS_REGION: 'eu-west-1',
      ANTHROPIC_BEDROCK_BASE_URL: 'http://127.0.0.1:1',
      AWS_BEARER_TOKEN_BEDROCK: 'ralph-session-x',
    })
    const foundry = foundryLogin({
      ANTHROPIC_FOUNDRY_RESOURCE: 'my-res',
      ANTHROPIC_FOUNDRY_API_KEY: 'FOUNDRYMARK',
    })
    expect(foundry.upstream).toBe('https://my-res.services.ai.azure.com/anthropic')
    expect(await foundry.authHeaders()).toEqual({ 'x-api-key': 'FOUNDRYMARK' })
    for (const login of [bedrock, foundry])
      expect(JSON.stringify(sessionOf(login))).not.toMatch(/SECRETMARK|SESSIONMARK|FOUNDRYMARK|AKIAEXAMPLE/)
  })

  it('refuses a login it would have to hand over, saying what to do', async () => {
    expect(() => bedrockLogin({ CLAUDE_CODE_USE_BEDROCK: '1', AWS_PROFILE: 'dev' })).toThrow(
      /neither AWS_BEARER_TOKEN_BEDROCK nor AWS_ACCESS_KEY_ID.*aws configure export-credentials/,
    )
    expect(() => foundryLogin({ ANTHROPIC_FOUNDRY_RESOURCE: 'r' })).toThrow(/ANTHROPIC_FOUNDRY_API_KEY/)
    await expect(
      claudeCloudLogin(
        ctx({ CLAUDE_CODE_USE_VERTEX: '1', GOOGLE_APPLICATION_CREDENTIALS: '/nonexistent/sa.json' }),
      ),
    ).rejects.toThrow(/No Google Cloud credentials file at \/nonexistent\/sa.json/)
  })

  it('Bedrock with AWS keys: the proxy signs each call (SigV4) and the placeholder goes no further', async () => {
    const seen: { url: string; headers: IncomingHttpHeaders; body: string }[] = []
    const upstream = createServer((req, res) => {
      let body = ''
      req.on('data', (c: Buffer) => (body += c.toString()))
      req.on('end', () => {
        seen.push({ url: req.url ?? '', headers: req.headers, body })
        res.writeHead(200, { 'content-type': 'application/json' })
        res.end('{}')
      })
    })
    await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r))
    closers.push(() => void upstream.close())
    const base = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`
    const login = bedrockLogin({ AWS_REGION: 'us-west-2', ANTHROPIC_BEDROCK_BASE_URL: base, ...AWS })
    const proxy = await startCredentialProxy({
      upstream: login.upstream,
      authHeaders: login.authHeaders,
      signRequest: login.signRequest!,
      logger: memoryLogger(),
    })
    closers.push(() => proxy.close())
    const body = JSON.stringify({ anthropic_version: 'bedrock-2023-05-31', max_tokens: 5, messages: [] })
    const res = await fetch(`${proxy.url}/model/claude-x-v1:0/invoke`, {
      method: 'POST',
      headers: { authorization: `Bearer ${proxy.placeholder}`, 'content-type': 'application/json' },
      body,
    })
    expect(res.status).toBe(200)
    const [call] = seen
    expect(call!.url).toBe('/model/claude-x-v1:0/invoke')
    expect(call!.body).toBe(body)
    expect(call!.headers['x-amz-security-token']).toBe('SESSIONMARK')
    const date = call!.headers['x-amz-date'] as string
    expect(date).toMatch(/^\d{8}T\d{6}Z$/)
    expect(call!.headers.authorization).toMatch(
      new RegExp(
        `^AWS4-HMAC-SHA256 Credential=AKIAEXAMPLEKEYID/${date.slice(0, 8)}/us-west-2/bedrock/aws4_request, ` +
          'SignedHeaders=[a-z0-9;-]*content-length;content-type;host;x-amz-date;x-amz-security-token, Signature=[0-9a-f]{64}$',
      ),
    )
    expect(JSON.stringify(call!.headers)).not.toMatch(/ralph-session-|SECRETMARK/)
  })
})
