import { basename, extname } from 'node:path'
import type { SecretLintSourceOptions } from '@secretlint/core'

/**
 * Secrets in added lines (verification's "no secrets" check, DESIGN.md §16; Commit to my git runs it too). The rules
 * are secretlint's recommended preset, a maintained set (AWS, GitHub, OpenAI, Anthropic, Slack, npm, private keys,
 * GCP service accounts, database URLs with passwords, …) that knows each provider's exact shape, so a placeholder
 * like `API_KEY = "your-key-here"` does not fail a task. A few shapes it lacks are added below (SUPPLEMENT, and
 * private key blocks it does not recognise).
 * Findings never carry the secret itself.
 *
 * secretlint is loaded on the first scan, never at start: `ralph --help` and every command that verifies nothing
 * stay as fast as before.
 */

export interface SecretFinding {
  path: string
  /** 1-based line in the new version of the file. */
  line: number
  kind: string
  /** The first and last characters with the middle masked: enough to find it, not enough to use it. */
  preview: string
}

type AddedLine = { line: number; text: string }
type Config = SecretLintSourceOptions['options']['config']
type Message = Awaited<ReturnType<(typeof import('@secretlint/core'))['lintSource']>>['messages'][number]

type Rule = (typeof import('@secretlint/secretlint-rule-preset-recommend'))['rules'][number]

const AWS_RULE = '@secretlint/secretlint-rule-aws'
const FILTER_COMMENTS = '@secretlint/secretlint-rule-filter-comments'

/** What each of the preset's messages means, in the words of the verdict. */
const KINDS: Record<string, string> = {
  AWSSecretAccessKey: 'AWS secret access key',
  AWSAccessKeyID: 'AWS access key id',
  PrivateKeyP12: 'GCP service account key',
  PrivateKeyJSON: 'GCP service account key',
  PackageJSON_xOauthToken: 'GitHub token',
  Npmrc_authToken: 'registry credential',
  NPM_ACCESS_TOKEN: 'npm access token',
  SLACK_TOKEN: 'Slack token',
  IncomingWebhook: 'Slack webhook URL',
  BasicAuth: 'password in a URL',
  OPENAI_TOKEN: 'OpenAI API key',
  ANTHROPIC_API_KEY: 'Anthropic API key',
  LINEAR_API_TOKEN: 'Linear API key',
  PrivateKey: 'private key',
  SENDGRID_KEY: 'SendGrid API key',
  SHOPIFY_KEY: 'Shopify API key',
  GITHUB_TOKEN: 'GitHub token',
  OPS_TOKEN: '1Password service account token',
  MongoDBConnection: 'database URL with a password',
  MySQLConnection: 'database URL with a password',
  PostgreSQLConnection: 'database URL with a password',
}

/**
 * The preset's rules as verification runs them, each registered on its own (secretlint 11 ignores `disabled` for a
 * rule inside a preset). Two changes from the preset's defaults:
 * - AWS access key ids (`AKIA…`) are reported (the preset reports only the secret key unless asked), but not AWS
 *   account ids, which are not secrets;
 * - the rule that honours `secretlint-disable` comments is left out: the model writes the code being checked, and a
 *   check it can switch off with a comment is no check.
 */
const rulesConfig = (rules: readonly Rule[]): Config => ({
  rules: rules
    .filter((rule) => rule.meta.id !== FILTER_COMMENTS)
    .map((rule) =>
      rule.meta.id === AWS_RULE
        ? { id: AWS_RULE, rule, options: { enableIDScanRule: true }, allowMessageIds: ['AWSAccountID'] }
        : { id: rule.meta.id, rule },
    ),
})

type Engine = { lintSource: (typeof import('@secretlint/core'))['lintSource']; config: Config }
let engine: Promise<Engine> | null = null

function loadEngine(): Promise<Engine> {
  engine ??= Promise.all([import('@secretlint/core'), import('@secretlint/secretlint-rule-preset-recommend')])
    .then(([core, preset]) => ({ lintSource: core.lintSource, config: rulesConfig(preset.rules) }))
    .catch((err: unknown) => {
      // Not cached: a later scan tries again (and fails loudly again) instead of remembering a broken install.
      engine = null
      throw err
    })
  return engine
}

/**
 * Shapes the preset does not know (secretlint 11.7), checked line by line:
 * - Google API keys and Stripe live keys (exact provider prefixes);
 * - an AWS secret key that ends in `/` or `+`: the preset's rule ends its match with `\b`, which needs a letter or
 *   digit last, so about one real key in 32 slips through it;
 * - a password or token in `.npmrc` / `.pypirc` (the preset sees only `_authToken=` in `.npmrc`); a reference to
 *   the environment (`${NPM_TOKEN}`) is how these files should hold one and passes.
 */
const SUPPLEMENT: { kind: string; re: RegExp; file?: RegExp }[] = [
  { kind: 'Google API key', re: /\b(AIza[0-9A-Za-z_-]{35})(?![0-9A-Za-z_-])/ },
  { kind: 'Stripe secret key', re: /\b([sr]k_live_[0-9A-Za-z]{20,})\b/ },
  {
    kind: 'AWS secret access key',
    re: /(?:aws)?_?secret_?access_?key["']?\s*(?::|=>|=)\s*["']?([A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])/i,
  },
  {
    kind: 'registry credential',
    file: /^\.npmrc$/i,
    re: /(?:^|:)_(?:auth|password|authToken)\s*=\s*(?!\$\{)(\S+)/,
  },
  { kind: 'registry credential', file: /^\.pypirc$/i, re: /^\s*password\s*[:=]\s*(?!\$\{|%\()(\S+)/i },
]

/** Documentation's sample values are not secrets (AWS's own examples end in EXAMPLE or EXAMPLEKEY). */
const SAMPLE = /EXAMPLE/i

/**
 * Private key blocks the preset lets through: it wants a body that starts like an RSA/EC key or an OpenSSH key and
 * is at least 100 characters, so a PKCS#8 Ed25519 key (64 characters), an ENCRYPTED PRIVATE KEY and a PGP key
 * block pass it. Here a block counts when its lines of pure base64 add up to MIN_KEY_BODY characters with some
 * variety: a placeholder body (`...`, `<your key>`, `AAAA…`) does not.
 */
const BEGIN_KEY = /-----BEGIN ((?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?)-----/
const MIN_KEY_BODY = 60
/** A key block is at most this many lines (an RSA 8192 key is about 100): the scan stays linear in the file. */
const MAX_KEY_LINES = 400

/** Each key block in `lines`: the index of its BEGIN line and its base64 body. */
function privateKeyBlocks(lines: readonly string[]): { at: number; body: string }[] {
  const blocks: { at: number; body: string }[] = []
  for (let i = 0; i < lines.length; i++) {
    const begin = BEGIN_KEY.exec(lines[i]!)
    if (!begin) continue
    const end = `-----END ${begin[1]}-----`
    const last = Math.min(lines.length, i + MAX_KEY_LINES)
    let j = i + 1
    while (j < last && !lines[j]!.includes(end)) j++
    if (j === last) continue
    const body = lines
      .slice(i + 1, j)
      .map((l) => l.trim())
      .filter((l) => /^[A-Za-z0-9+/]+={0,2}$/.test(l))
      .join('')
    if (body.length >= MIN_KEY_BODY && new Set(body).size >= 16) blocks.push({ at: i, body })
    i = j
  }
  return blocks
}

function mask(secret: string): string {
  if (secret.length <= 8) return '****'
  return `${secret.slice(0, 4)}…${secret.slice(-2)} (${secret.length} chars)`
}

/**
 * Stands for a run of unchanged lines: not blank, because the rules allow whitespace (a newline too) between a key
 * and its value, and an unchanged line between two added ones must not join them into one match.
 */
const GAP = '\u2026'

/**
 * The text secretlint scans for one file: its added lines at their places, each run of unchanged lines folded into
 * one GAP line. A private key added as a block stays one block (the preset matches BEGIN to END), added lines apart
 * never join into one match, and `real[i]` gives the file's line for source line i + 1.
 */
function sourceOf(added: readonly AddedLine[]): { content: string; real: number[] } {
  const sorted = [...added].sort((a, b) => a.line - b.line)
  const lines: string[] = []
  const real: number[] = []
  let previous: number | null = null
  for (const a of sorted) {
    if (previous !== null && a.line !== previous + 1) {
      lines.push(GAP)
      real.push(previous + 1)
    }
    lines.push(a.text)
    real.push(a.line)
    previous = a.line
  }
  return { content: lines.join('\n'), real }
}

/** The secret a message is about: the longest value it names, or else the text its range covers. */
function secretOf(message: Message, content: string): string {
  const values = Object.entries(message.data ?? {})
    .filter(([k, v]) => typeof v === 'string' && k !== 'typeName' && k !== 'FILE_NAME')
    .map(([, v]) => v as string)
  const longest = values.sort((a, b) => b.length - a.length)[0]
  return longest || content.slice(message.range[0], message.range[1])
}

async function scanFile(lint: Engine, path: string, added: readonly AddedLine[]): Promise<SecretFinding[]> {
  const { content, real } = sourceOf(added)
  const ext = extname(path).toLowerCase()
  const result = await lint.lintSource({
    source: {
      content,
      filePath: path,
      // The GCP rule reads a `.p12` from disk by its path; the path here is relative to the project, not this
      // process's folder, so it must not. A .p12 is a blocked path anyway, and its bytes are never text.
      ext: ext === '.p12' ? '.p12-text' : ext,
      contentType: 'text',
    },
    options: { config: lint.config, noPhysicFilePath: true },
  })
  const findings: SecretFinding[] = []
  for (const m of result.messages) {
    if (m.type !== 'message') continue
    const line = real[m.loc.start.line - 1] ?? added[0]?.line ?? 1
    findings.push({
      path,
      line,
      kind: KINDS[m.messageId] ?? m.messageId,
      preview: mask(secretOf(m, content)),
    })
  }
  for (const block of privateKeyBlocks(content.split('\n'))) {
    const line = real[block.at]!
    if (!findings.some((f) => f.line === line))
      findings.push({ path, line, kind: 'private key', preview: mask(block.body) })
  }
  const name = basename(path)
  for (const a of added) {
    for (const rule of SUPPLEMENT) {
      if (rule.file && !rule.file.test(name)) continue
      const hit = rule.re.exec(a.text)?.[1]
      if (!hit || SAMPLE.test(hit) || findings.some((f) => f.line === a.line)) continue
      findings.push({ path, line: a.line, kind: rule.kind, preview: mask(hit) })
    }
  }
  return findings.sort((x, y) => x.line - y.line)
}

/** Every finding in the added lines of each changed file, in file order then line order. */
export async function scanAddedLines(
  files: readonly { path: string; added: readonly AddedLine[] }[],
): Promise<SecretFinding[]> {
  const withLines = files.filter((f) => f.added.length > 0)
  if (withLines.length === 0) return []
  const lint = await loadEngine()
  const findings: SecretFinding[] = []
  for (const f of withLines) findings.push(...(await scanFile(lint, f.path, f.added)))
  return findings
}
