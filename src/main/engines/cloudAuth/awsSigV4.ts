// AWS Signature Version 4 for a request Ralph's credential proxy forwards to Amazon Bedrock: the session sends its
// calls with a placeholder, and the proxy signs each one here, outside the sandbox, with the user's AWS keys. The
// signing itself is @smithy/signature-v4's (the AWS SDK's own signer); this adapts a proxied request to it.
import { createHash, createHmac, type Hash, type Hmac } from 'node:crypto'
import { SignatureV4 } from '@smithy/signature-v4'

export interface AwsKeys {
  accessKeyId: string
  secretAccessKey: string
  sessionToken?: string
}

/** One request as it goes upstream: its target, its headers (lower-case names) and its whole body. */
export interface OutgoingRequest {
  method: string
  url: URL
  headers: Record<string, string>
  body: Buffer
}

/** SHA-256 (or its HMAC with a key) in the shape the signer takes, on Node's crypto. */
class NodeSha256 {
  private hash: Hash | Hmac
  constructor(private readonly secret?: Uint8Array | string | ArrayBuffer | ArrayBufferView) {
    this.hash = this.fresh()
  }
  private fresh(): Hash | Hmac {
    if (this.secret === undefined) return createHash('sha256')
    return createHmac('sha256', bytes(this.secret))
  }
  update(data: Uint8Array | string | ArrayBuffer | ArrayBufferView): void {
    this.hash.update(bytes(data))
  }
  digest(): Promise<Uint8Array> {
    return Promise.resolve(new Uint8Array(this.hash.digest()))
  }
  reset(): void {
    this.hash = this.fresh()
  }
}

function bytes(data: Uint8Array | string | ArrayBuffer | ArrayBufferView): Buffer | string {
  if (typeof data === 'string') return data
  if (data instanceof ArrayBuffer) return Buffer.from(data)
  return Buffer.from(data.buffer, data.byteOffset, data.byteLength)
}

function queryOf(url: URL): Record<string, string | string[]> {
  const query: Record<string, string | string[]> = {}
  for (const [name, value] of url.searchParams) {
    const had = query[name]
    query[name] = had === undefined ? value : [...(Array.isArray(had) ? had : [had]), value]
  }
  return query
}

/**
 * The headers that sign `request` for `service` in `region` (Authorization, X-Amz-Date, X-Amz-Security-Token with
 * temporary keys): added to the request as it is, every other header and the body unchanged.
 */
export async function sigV4Headers(
  request: OutgoingRequest,
  keys: AwsKeys,
  scope: { region: string; service: string },
  signingDate: Date = new Date(),
): Promise<Record<string, string>> {
  const signer = new SignatureV4({
    credentials: keys,
    region: scope.region,
    service: scope.service,
    sha256: NodeSha256,
    // Every service but S3 signs the path URI-encoded once more (AWS's rule), as the AWS SDK does for Bedrock.
    uriEscapePath: scope.service !== 's3',
    applyChecksum: scope.service === 's3',
  })
  const { url } = request
  const signed = await signer.sign(
    {
      method: request.method,
      protocol: url.protocol,
      hostname: url.hostname,
      ...(url.port ? { port: Number(url.port) } : {}),
      path: url.pathname,
      query: queryOf(url),
      headers: { ...request.headers, host: url.host },
      body: request.body,
    },
    { signingDate },
  )
  const added: Record<string, string> = {}
  for (const [name, value] of Object.entries(signed.headers as Record<string, string>)) {
    const lower = name.toLowerCase()
    if (request.headers[lower] !== value && lower !== 'host') added[lower] = value
  }
  return added
}
