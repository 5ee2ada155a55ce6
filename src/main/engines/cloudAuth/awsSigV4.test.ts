import { describe, expect, it } from 'vitest'
import { sigV4Headers } from './awsSigV4'

// AWS's own worked example (Amazon S3 API reference, "Signature calculations for the Authorization header:
// GET object"): the signature is AWS's published answer, not one computed by the library under test.
const EXAMPLE_KEYS = {
  accessKeyId: 'AKIAIOSFODNN7EXAMPLE',
  secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
}
const EMPTY_SHA256 = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'

describe('sigV4Headers', () => {
  it("reproduces AWS's published signature for its GET object example", async () => {
    const headers = await sigV4Headers(
      {
        method: 'GET',
        url: new URL('https://examplebucket.s3.amazonaws.com/test.txt'),
        headers: { range: 'bytes=0-9', 'x-amz-content-sha256': EMPTY_SHA256 },
        body: Buffer.alloc(0),
      },
      EXAMPLE_KEYS,
      { region: 'us-east-1', service: 's3' },
      new Date('2013-05-24T00:00:00Z'),
    )
    expect(headers).toEqual({
      'x-amz-date': '20130524T000000Z',
      authorization:
        'AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, ' +
        'SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, ' +
        'Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41',
    })
  })

  it('signs a Bedrock call with temporary keys: scope, session token, the body and every header it is sent with', async () => {
    const request = (body: string) => ({
      method: 'POST',
      url: new URL('https://bedrock-runtime.eu-west-1.amazonaws.com/model/anthropic.claude-x-v1:0/invoke'),
      headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
      body: Buffer.from(body),
    })
    const keys = { ...EXAMPLE_KEYS, sessionToken: 'FQoGZXIvYXdzEXAMPLETOKEN' }
    const scope = { region: 'eu-west-1', service: 'bedrock' }
    const at = new Date('2026-11-29T10:00:00Z')
    const one = await sigV4Headers(request('{"a":1}'), keys, scope, at)
    expect(one['x-amz-security-token']).toBe('FQoGZXIvYXdzEXAMPLETOKEN')
    expect(one.authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE\/20261129\/eu-west-1\/bedrock\/aws4_request, SignedHeaders=anthropic-version;content-type;host;x-amz-date;x-amz-security-token, Signature=[0-9a-f]{64}$/,
    )
    // The body is signed: another body, another signature; the secret itself is never sent.
    const two = await sigV4Headers(request('{"a":2}'), keys, scope, at)
    expect(two.authorization).not.toBe(one.authorization)
    expect(JSON.stringify(one)).not.toContain(EXAMPLE_KEYS.secretAccessKey)
  })
})
