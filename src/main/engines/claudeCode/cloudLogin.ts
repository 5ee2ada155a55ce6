// Claude Code on a cloud provider (Amazon Bedrock, Google Vertex AI, Microsoft Foundry), behind Ralph's credential
// proxy like the Anthropic key (./login.ts). The session is pointed at the proxy with the provider's base-URL
// variable and given only a placeholder: Claude Code 2.1.328 sends `Authorization: Bearer <placeholder>` on every
// call when AWS_BEARER_TOKEN_BEDROCK (Bedrock), ANTHROPIC_FOUNDRY_AUTH_TOKEN (Foundry) or, with
// CLAUDE_CODE_SKIP_VERTEX_AUTH, the custom header `Authorization` (Vertex) holds it (checked by running the CLI).
// The proxy, outside the sandbox, then adds the real credential:
// - Bedrock: the user's AWS_BEARER_TOKEN_BEDROCK, or a SigV4 signature made with AWS_ACCESS_KEY_ID /
//   AWS_SECRET_ACCESS_KEY (/ AWS_SESSION_TOKEN) for each request;
// - Vertex AI: an OAuth access token made from the credentials file (GOOGLE_APPLICATION_CREDENTIALS, else gcloud's
//   application-default login), refreshed before it expires;
// - Foundry: the user's ANTHROPIC_FOUNDRY_API_KEY (`x-api-key`) or ANTHROPIC_FOUNDRY_AUTH_TOKEN (Bearer).
// Logins the proxy cannot stand in for (an AWS profile or SSO, Azure's default credential chain, the newer
// providers) are refused with what to do: a session never holds a cloud credential.
import { AppError } from '../../../shared/errors'
import { sigV4Headers, type AwsKeys } from '../cloudAuth/awsSigV4'
import { googleCredentialsPath, googleTokenSource, readGoogleCredentials } from '../cloudAuth/googleToken'
import type { EngineLogin, LoginContext } from '../types'

export type ClaudeCloud = 'bedrock' | 'vertex' | 'foundry'

const SELECTORS: Record<ClaudeCloud, string> = {
  bedrock: 'CLAUDE_CODE_USE_BEDROCK',
  vertex: 'CLAUDE_CODE_USE_VERTEX',
  foundry: 'CLAUDE_CODE_USE_FOUNDRY',
}
/** Providers Claude Code also has, whose logins Ralph cannot stand in for yet. */
const UNSUPPORTED = [
  'CLAUDE_CODE_USE_ANTHROPIC_AWS',
  'CLAUDE_CODE_USE_ANTHROPIC_GOOGLE_CLOUD',
  'CLAUDE_CODE_USE_MANTLE',
]

const set = (v: string | undefined): string | null => (v !== undefined && v.trim() !== '' ? v.trim() : null)
/** Claude Code's reading of a switch variable. */
export const truthy = (v: string | undefined) =>
  ['1', 'true', 'yes', 'on'].includes((v ?? '').trim().toLowerCase())

/** The cloud provider Ralph's environment selects for Claude Code, if any (refusing one Ralph cannot proxy). */
export function selectedCloud(env: NodeJS.ProcessEnv): ClaudeCloud | null {
  const other = UNSUPPORTED.find((name) => truthy(env[name]))
  if (other)
    throw new AppError(
      'config',
      `${other} is set, and Ralph cannot yet run Claude Code on that provider without handing the session its ` +
        'credentials. Unset it for Ralph (use Amazon Bedrock, Google Vertex AI, Microsoft Foundry or an Anthropic key).',
    )
  for (const cloud of ['bedrock', 'vertex', 'foundry'] as const)
    if (truthy(env[SELECTORS[cloud]])) return cloud
  return null
}

// Per-model regions (VERTEX_REGION_CLAUDE_*, ANTHROPIC_SMALL_FAST_MODEL_AWS_REGION) are not passed: every call goes
// through the one proxy to the one regional endpoint, so a call for another region would be refused or mis-signed.

export function bedrockLogin(env: NodeJS.ProcessEnv): EngineLogin {
  const region = set(env.AWS_REGION) ?? set(env.AWS_DEFAULT_REGION) ?? 'us-east-1'
  const upstream = set(env.ANTHROPIC_BEDROCK_BASE_URL) ?? `https://bedrock-runtime.${region}.amazonaws.com`
  const session = (proxy: { url: string; placeholder: string }) => ({
    env: {
      CLAUDE_CODE_USE_BEDROCK: '1',
      AWS_REGION: region,
      ANTHROPIC_BEDROCK_BASE_URL: proxy.url,
      AWS_BEARER_TOKEN_BEDROCK: proxy.placeholder,
    },
    args: [],
    files: {},
  })
  const where = `Amazon Bedrock (${region})${set(env.ANTHROPIC_BEDROCK_BASE_URL) ? ` → ${upstream}` : ''}`
  const token = set(env.AWS_BEARER_TOKEN_BEDROCK)
  if (token)
    return {
      description: `AWS_BEARER_TOKEN_BEDROCK, ${where}`,
      upstream,
      authHeaders: async () => ({ authorization: `Bearer ${token}` }),
      session,
    }
  const accessKeyId = set(env.AWS_ACCESS_KEY_ID)
  const secretAccessKey = set(env.AWS_SECRET_ACCESS_KEY)
  if (!accessKeyId || !secretAccessKey)
    throw new AppError(
      'config',
      'Claude Code is set to use Amazon Bedrock (CLAUDE_CODE_USE_BEDROCK), but Ralph finds neither ' +
        'AWS_BEARER_TOKEN_BEDROCK nor AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY in its environment. Ralph signs ' +
        "the session's calls itself and never hands a session your AWS login, so it does not read AWS profiles or " +
        'SSO: start Ralph with those variables set (for a profile: `eval "$(aws configure export-credentials ' +
        '--format env)"`).',
    )
  const sessionToken = set(env.AWS_SESSION_TOKEN)
  const keys: AwsKeys = { accessKeyId, secretAccessKey, ...(sessionToken ? { sessionToken } : {}) }
  return {
    description: `AWS_ACCESS_KEY_ID (signed by Ralph), ${where}`,
    upstream,
    authHeaders: async () => ({}),
    signRequest: (request) => sigV4Headers(request, keys, { region, service: 'bedrock' }),
    session,
  }
}

/** Vertex AI's endpoint for a region, as Claude Code 2.1.328 builds it. */
export function vertexEndpoint(region: string): string {
  if (region === 'global') return 'https://aiplatform.googleapis.com/v1'
  if (region === 'us' || region === 'eu') return `https://aiplatform.${region}.rep.googleapis.com/v1`
  return `https://${region}-aiplatform.googleapis.com/v1`
}

export async function vertexLogin(ctx: LoginContext): Promise<EngineLogin> {
  const { env } = ctx
  const path = googleCredentialsPath(env, ctx.userHome)
  let creds
  try {
    creds = await readGoogleCredentials(path)
  } catch (err) {
    throw new AppError(
      'config',
      `Claude Code is set to use Google Vertex AI (CLAUDE_CODE_USE_VERTEX), but Ralph cannot use its login: ` +
        `${(err as Error).message} Ralph makes the session's access tokens itself and never hands a session your ` +
        'Google credentials.',
      undefined,
      { cause: err },
    )
  }
  const project = set(env.ANTHROPIC_VERTEX_PROJECT_ID) ?? creds.projectId
  if (!project)
    throw new AppError(
      'config',
      'Claude Code is set to use Google Vertex AI, but no project is named: set ANTHROPIC_VERTEX_PROJECT_ID.',
    )
  const region = set(env.CLOUD_ML_REGION) ?? 'us-east5'
  const upstream = set(env.ANTHROPIC_VERTEX_BASE_URL) ?? vertexEndpoint(region)
  const tokens = googleTokenSource(creds)
  const who = creds.kind === 'service_account' ? creds.clientEmail : 'your gcloud login'
  return {
    description: `${who}, Google Vertex AI (${project}, ${region})${set(env.ANTHROPIC_VERTEX_BASE_URL) ? ` → ${upstream}` : ''}`,
    upstream,
    authHeaders: async () => ({ authorization: `Bearer ${await tokens.token()}` }),
    session: (proxy) => ({
      env: {
        CLAUDE_CODE_USE_VERTEX: '1',
        CLOUD_ML_REGION: region,
        ANTHROPIC_VERTEX_PROJECT_ID: project,
        ANTHROPIC_VERTEX_BASE_URL: proxy.url,
        // No Google login inside: Claude Code sends this header on every call instead, and the proxy swaps it.
        CLAUDE_CODE_SKIP_VERTEX_AUTH: '1',
        ANTHROPIC_CUSTOM_HEADERS: `Authorization: Bearer ${proxy.placeholder}`,
      },
      args: [],
      files: {},
    }),
  }
}

export function foundryLogin(env: NodeJS.ProcessEnv): EngineLogin {
  const resource = set(env.ANTHROPIC_FOUNDRY_RESOURCE)
  const base = set(env.ANTHROPIC_FOUNDRY_BASE_URL)
  const upstream = base ?? (resource ? `https://${resource}.services.ai.azure.com/anthropic` : null)
  if (!upstream)
    throw new AppError(
      'config',
      'Claude Code is set to use Microsoft Foundry, but neither ANTHROPIC_FOUNDRY_RESOURCE nor ' +
        'ANTHROPIC_FOUNDRY_BASE_URL is set.',
    )
  const key = set(env.ANTHROPIC_FOUNDRY_API_KEY)
  const token = set(env.ANTHROPIC_FOUNDRY_AUTH_TOKEN)
  if (!key && !token)
    throw new AppError(
      'config',
      'Claude Code is set to use Microsoft Foundry (CLAUDE_CODE_USE_FOUNDRY), but Ralph finds neither ' +
        'ANTHROPIC_FOUNDRY_API_KEY nor ANTHROPIC_FOUNDRY_AUTH_TOKEN in its environment. Ralph never hands a ' +
        "session your Azure login, so it does not use Azure's default credentials: start Ralph with the resource's " +
        'API key in ANTHROPIC_FOUNDRY_API_KEY.',
    )
  const auth: Record<string, string> = key ? { 'x-api-key': key } : { authorization: `Bearer ${token}` }
  return {
    description: `${key ? 'ANTHROPIC_FOUNDRY_API_KEY' : 'ANTHROPIC_FOUNDRY_AUTH_TOKEN'}, Microsoft Foundry → ${upstream}`,
    upstream,
    authHeaders: async () => auth,
    session: (proxy) => ({
      env: {
        CLAUDE_CODE_USE_FOUNDRY: '1',
        ANTHROPIC_FOUNDRY_BASE_URL: proxy.url,
        ANTHROPIC_FOUNDRY_AUTH_TOKEN: proxy.placeholder,
      },
      args: [],
      files: {},
    }),
  }
}

/** The login for the cloud provider the environment selects; null when it selects none (Anthropic's API). */
export async function claudeCloudLogin(ctx: LoginContext): Promise<EngineLogin | null> {
  const cloud = selectedCloud(ctx.env)
  if (cloud === 'bedrock') return bedrockLogin(ctx.env)
  if (cloud === 'vertex') return vertexLogin(ctx)
  if (cloud === 'foundry') return foundryLogin(ctx.env)
  return null
}
