import { generateKeyPairSync, createVerify } from 'node:crypto'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { LoginUnusable } from '../credentialProxy'
import { CLOUD_PLATFORM_SCOPE, googleTokenSource, parseGoogleCredentials } from './googleToken'

const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 })
const PEM = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString()

interface Grant {
  form: URLSearchParams
}
const closers: (() => void)[] = []
afterEach(() => closers.splice(0).forEach((c) => c()))

/** A token endpoint that checks what Google's checks: the grant, and for a JWT its RS256 signature and claims. */
async function tokenEndpoint(answer: (grant: Grant) => { status: number; body: object }) {
  const grants: Grant[] = []
  const server = createServer((req, res) => {
    let text = ''
    req.on('data', (c: Buffer) => (text += c.toString()))
    req.on('end', () => {
      const grant = { form: new URLSearchParams(text) }
      grants.push(grant)
      const { status, body } = answer(grant)
      res.writeHead(status, { 'content-type': 'application/json' })
      res.end(JSON.stringify(body))
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  closers.push(() => server.close())
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/token`, grants }
}

const serviceAccount = (tokenUri: string) =>
  JSON.stringify({
    type: 'service_account',
    project_id: 'proj-1',
    private_key_id: 'kid-1',
    private_key: PEM,
    client_email: 'ralph@proj-1.iam.gserviceaccount.com',
    token_uri: tokenUri,
  })

function verifiedClaims(jwt: string): Record<string, unknown> {
  const [header, claims, signature] = jwt.split('.')
  const ok = createVerify('RSA-SHA256')
    .update(`${header}.${claims}`)
    .verify(publicKey, Buffer.from(signature!, 'base64url'))
  if (!ok) throw new Error('bad signature')
  return JSON.parse(Buffer.from(claims!, 'base64url').toString()) as Record<string, unknown>
}

describe('googleTokenSource', () => {
  it('a service account: a JWT signed with its key is exchanged at its token_uri; the token is reused until near expiry', async () => {
    const endpoint = await tokenEndpoint(({ form }) => {
      const claims = verifiedClaims(form.get('assertion') ?? '')
      const ok =
        form.get('grant_type') === 'urn:ietf:params:oauth:grant-type:jwt-bearer' &&
        claims.iss === 'ralph@proj-1.iam.gserviceaccount.com' &&
        claims.scope === CLOUD_PLATFORM_SCOPE &&
        claims.aud === endpoint.url
      return ok
        ? { status: 200, body: { access_token: `ya29.token-${endpoint.grants.length}`, expires_in: 3600 } }
        : { status: 400, body: { error: 'invalid_grant' } }
    })
    const creds = parseGoogleCredentials(serviceAccount(endpoint.url), 'sa.json')
    expect(creds).toMatchObject({ kind: 'service_account', projectId: 'proj-1' })
    let now = Date.now()
    const source = googleTokenSource(creds, () => now)
    const [a, b] = await Promise.all([source.token(), source.token()])
    expect([a, b]).toEqual(['ya29.token-1', 'ya29.token-1'])
    now += 50 * 60_000
    expect(await source.token()).toBe('ya29.token-1')
    now += 6 * 60_000 // within five minutes of the hour: a new one
    expect(await source.token()).toBe('ya29.token-2')
    expect(endpoint.grants).toHaveLength(2)
  })

  it("gcloud's login: its refresh token is exchanged; a refusal says what to do", async () => {
    let refuse = false
    const endpoint = await tokenEndpoint(({ form }) =>
      !refuse && form.get('grant_type') === 'refresh_token' && form.get('refresh_token') === '1//rt'
        ? { status: 200, body: { access_token: 'ya29.user', expires_in: 3599 } }
        : {
            status: 400,
            body: { error: 'invalid_grant', error_description: 'Token has been expired or revoked.' },
          },
    )
    const file = {
      type: 'authorized_user',
      client_id: 'c',
      client_secret: 's',
      refresh_token: '1//rt',
      token_uri: endpoint.url,
    }
    const creds = parseGoogleCredentials(JSON.stringify(file), 'adc.json')
    expect(await googleTokenSource(creds).token()).toBe('ya29.user')
    refuse = true
    const failed = googleTokenSource(creds).token()
    await expect(failed).rejects.toBeInstanceOf(LoginUnusable)
    await expect(failed).rejects.toThrow(/expired or revoked.*gcloud auth application-default login/)
  })

  it('refuses files it cannot stand in for, and a token_uri over plain http elsewhere', () => {
    expect(() => parseGoogleCredentials('{"type":"external_account"}', 'f.json')).toThrow(
      /type "external_account".*GOOGLE_APPLICATION_CREDENTIALS/,
    )
    expect(() => parseGoogleCredentials(serviceAccount('http://tokens.example.com/token'), 'f.json')).toThrow(
      /must be an https URL/,
    )
    expect(() => parseGoogleCredentials('not json', 'f.json')).toThrow(/not a JSON credentials file/)
  })
})
