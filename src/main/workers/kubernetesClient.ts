// The way to a Kubernetes cluster (issue #39): the kubeconfig as kubectl reads it (KUBECONFIG or ~/.kube/config, or a
// file named), its current context or one named, and the namespace (named, the context's, or "default"); and what a
// failed call means, in one sentence.
import { ApiException, BatchV1Api, CoreV1Api, KubeConfig, VersionApi } from '@kubernetes/client-node'
import { AppError, isAppError } from '../../shared/errors'

export interface KubeTarget {
  /** A kubeconfig file; default: KUBECONFIG or ~/.kube/config, as kubectl. */
  kubeconfig?: string
  /** A context of the kubeconfig; default: its current context. */
  context?: string
  /** Default: the context's namespace, else "default". */
  namespace?: string
}

export interface KubeConnection {
  kc: KubeConfig
  batch: BatchV1Api
  core: CoreV1Api
  version: VersionApi
  context: string
  namespace: string
  server: string
  /** Where jobs run, for people: `k8s: context/namespace`. */
  label: string
}

export function connectKube(target: KubeTarget = {}): KubeConnection {
  const kc = new KubeConfig()
  try {
    if (target.kubeconfig) kc.loadFromFile(target.kubeconfig)
    else kc.loadFromDefault()
  } catch (err) {
    throw new AppError(
      'config',
      `The kubeconfig ${target.kubeconfig ?? '(KUBECONFIG or ~/.kube/config)'} cannot be read: ${(err as Error).message}`,
    )
  }
  if (target.context) {
    const names = kc.getContexts().map((c) => c.name)
    if (!names.includes(target.context))
      throw new AppError(
        'config',
        `The kubeconfig has no context "${target.context}" (it has: ${names.join(', ') || 'none'}); name one of ` +
          'them with --context.',
      )
    kc.setCurrentContext(target.context)
  }
  const context = kc.getCurrentContext()
  const cluster = kc.getCurrentCluster()
  if (!context || !cluster)
    throw new AppError(
      'config',
      'The kubeconfig has no current context with a cluster: set one (kubectl config use-context NAME) or name it ' +
        'with --context.',
    )
  const namespace = target.namespace || kc.getContextObject(context)?.namespace || 'default'
  return {
    kc,
    batch: kc.makeApiClient(BatchV1Api),
    core: kc.makeApiClient(CoreV1Api),
    version: kc.makeApiClient(VersionApi),
    context,
    namespace,
    server: cluster.server,
    label: `k8s: ${context}/${namespace}`,
  }
}

const NETWORK: Record<string, string> = {
  ECONNREFUSED: 'nothing listens there',
  ENOTFOUND: 'the host name is unknown',
  EAI_AGAIN: 'the host name is unknown',
  ETIMEDOUT: 'it did not answer in time',
  UND_ERR_CONNECT_TIMEOUT: 'it did not answer in time',
  ECONNRESET: 'the connection was cut',
  EHOSTUNREACH: 'no route leads there',
  CERT_HAS_EXPIRED: 'its certificate has expired',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'its certificate is not trusted',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'its certificate is not trusted',
}

/** The network error under a failed fetch (undici wraps it as the cause of "fetch failed"). */
function networkCode(err: unknown): string | null {
  for (
    let e = err as { code?: unknown; cause?: unknown } | undefined, i = 0;
    e && i < 5;
    e = e.cause as typeof e, i++
  )
    if (typeof e.code === 'string' && e.code in NETWORK) return e.code
  return null
}

/** The API's own message (a Status object's), from a body parsed or not. */
function statusMessage(body: unknown): string {
  let b = body
  if (typeof body === 'string')
    try {
      b = JSON.parse(body)
    } catch (err) {
      // Not a Status object: the text is the message.
      if (err instanceof SyntaxError) return body.slice(0, 200)
      throw err
    }
  const msg = (b as { message?: unknown } | null)?.message
  return typeof msg === 'string' ? msg : ''
}

export const isKubeNotFound = (err: unknown): boolean => err instanceof ApiException && err.code === 404

/** A failed call to the cluster as one sentence: unreachable, refused credentials, not allowed, or what it said. */
export function kubeFailure(err: unknown, conn: KubeConnection, step: string): AppError {
  if (isAppError(err)) return err
  const net = networkCode(err)
  if (net)
    return new AppError(
      'provider',
      `The Kubernetes API at ${conn.server} cannot be reached (${NETWORK[net]}, ${net}) while ${step}: check that ` +
        `the cluster is up and that the kubeconfig's context "${conn.context}" names it.`,
    )
  if (err instanceof ApiException) {
    const code = err.code as number
    const msg = statusMessage(err.body)
    if (code === 401)
      return new AppError(
        'config',
        `The Kubernetes API at ${conn.server} refused the kubeconfig's credentials (401) while ${step}: log in ` +
          `again or fix the user of the context "${conn.context}".`,
      )
    if (code === 403)
      return new AppError(
        'config',
        `The kubeconfig's user may not do this in the namespace ${conn.namespace} (403, ${step}): ${msg || 'forbidden'}.`,
      )
    if (code === 404 && /namespaces? "?[^ ]*"? not found/.test(msg))
      return new AppError(
        'config',
        `The namespace ${conn.namespace} does not exist on the cluster at ${conn.server}: name another with --namespace.`,
      )
    return new AppError(
      'provider',
      `The Kubernetes API answered ${code} while ${step}: ${msg || 'no message'}.`,
    )
  }
  const message = err instanceof Error ? err.message : String(err)
  return new AppError('provider', `Kubernetes: ${step} failed: ${message.split('\n')[0]}`)
}
