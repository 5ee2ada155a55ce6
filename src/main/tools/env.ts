// The environment of every process started for the model (DESIGN.md §14): built from an allowlist, so a secret
// whose name looks harmless (DATABASE_URL, STRIPE_KEY …) stays out as surely as the API keys do.

/** Locale, terminal and time zone: harmless, and tools misbehave without them. */
const ALLOWED = new Set([
  ...['PATH', 'LANG', 'LANGUAGE', 'TERM', 'COLORTERM', 'TZ', 'USER', 'LOGNAME', 'TMPDIR'],
  // A lane's number and ports (issue #38, lanes/ports.ts): set by Ralph for the lane's commands, no secret.
  ...['RALPH_LANE', 'RALPH_LANE_PORT', 'RALPH_LANE_PORTS'],
])
const ALLOWED_PREFIXES = ['LC_']
/**
 * Where toolchains and CA bundles live: paths, not secrets. With HOME moved to a scratch folder, rustup and
 * pyenv shims could not find their toolchains without these.
 */
const TOOLCHAIN = new Set([
  'RUSTUP_HOME',
  'PYENV_ROOT',
  'GOROOT',
  'JAVA_HOME',
  'SSL_CERT_FILE',
  'SSL_CERT_DIR',
  'NODE_EXTRA_CA_CERTS',
  'REQUESTS_CA_BUNDLE',
  'CURL_CA_BUNDLE',
  'GIT_SSL_CAINFO',
])

/**
 * The credentials Ralph itself calls models with (its providers, and the engines' logins, which reach a session only
 * through Ralph's proxy): a project's passEnv never gets these, so a cloned `.ralph/config.json` cannot hand them to
 * the model.
 */
const APP_SECRETS = new Set([
  'RALPH_API_KEY',
  'OPENAI_API_KEY',
  'ANTHROPIC_API_KEY',
  'ANTHROPIC_AUTH_TOKEN',
  'CLAUDE_CODE_OAUTH_TOKEN',
  'CODEX_API_KEY',
  'OPENROUTER_API_KEY',
  'AWS_ACCESS_KEY_ID',
  'AWS_SECRET_ACCESS_KEY',
  'AWS_SESSION_TOKEN',
  'AWS_BEARER_TOKEN_BEDROCK',
  'GOOGLE_APPLICATION_CREDENTIALS',
  'ANTHROPIC_FOUNDRY_API_KEY',
  'ANTHROPIC_FOUNDRY_AUTH_TOKEN',
])
const SECRET_PATTERN = /(API_?KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|PRIVATE_KEY|ACCESS_KEY|AUTH)/i
const NOT_SECRET = new Set(['XAUTHORITY'])

/** Names that look like credentials: for warnings and displays, no longer the filter itself. */
export function isSecretName(name: string): boolean {
  if (NOT_SECRET.has(name)) return false
  return APP_SECRETS.has(name.toUpperCase()) || SECRET_PATTERN.test(name)
}

/** Whether `.ralph/config.json` may pass a variable through: anything but the app's own credentials and settings. */
export function passableName(name: string): boolean {
  const upper = name.toUpperCase()
  return !APP_SECRETS.has(upper) && !upper.startsWith('RALPH_')
}

export interface CommandEnvOptions {
  /** HOME inside: the sandbox's scratch folder. Without it HOME is left out. */
  home?: string
  /** The project's declared variables (`.ralph/config.json` "sandbox": { "passEnv": [...] }). */
  passEnv?: readonly string[]
}

function allowed(name: string): boolean {
  return ALLOWED.has(name) || TOOLCHAIN.has(name) || ALLOWED_PREFIXES.some((p) => name.startsWith(p))
}

export function commandEnv(
  base: NodeJS.ProcessEnv = process.env,
  opts: CommandEnvOptions = {},
): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {}
  for (const [name, value] of Object.entries(base)) {
    if (value !== undefined && allowed(name)) env[name] = value
  }
  for (const name of opts.passEnv ?? []) {
    const value = base[name]
    if (value !== undefined && passableName(name)) env[name] = value
  }
  env.PATH ??= '/usr/local/bin:/usr/bin:/bin'
  if (opts.home !== undefined) env.HOME = opts.home
  // Commands run unattended: nothing may wait for a pager, a password prompt or an editor.
  env.GIT_TERMINAL_PROMPT = '0'
  env.GIT_PAGER = 'cat'
  env.PAGER = 'cat'
  env.CI ??= '1'
  // .git is read-only in the sandbox: husky's install step (npm prepare) would fail the whole npm install.
  env.HUSKY ??= '0'
  return env
}
