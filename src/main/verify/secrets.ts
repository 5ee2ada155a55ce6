/**
 * Secrets in added lines (verification's "no secrets" check, DESIGN.md §16). Precise token shapes of the big
 * providers first, then a guarded generic rule (a credential-named key assigned a long, high-entropy literal) so a
 * placeholder like `API_KEY = "your-key-here"` does not fail a task. Findings never carry the secret itself.
 */

export interface SecretFinding {
  path: string
  /** 1-based line in the new version of the file. */
  line: number
  kind: string
  /** The first and last characters with the middle masked: enough to find it, not enough to use it. */
  preview: string
}

const PATTERNS: { kind: string; re: RegExp }[] = [
  {
    kind: 'private key',
    re: /-----BEGIN (?:RSA |EC |DSA |OPENSSH |PGP |ENCRYPTED )?PRIVATE KEY( BLOCK)?-----/,
  },
  { kind: 'AWS access key id', re: /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/ },
  { kind: 'GitHub token', re: /\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{40,})\b/ },
  { kind: 'Anthropic API key', re: /\bsk-ant-[A-Za-z0-9_-]{20,}/ },
  { kind: 'OpenAI API key', re: /\bsk-(?:proj-|svcacct-)?[A-Za-z0-9_-]{32,}/ },
  { kind: 'Slack token', re: /\bxox[abposr]-[A-Za-z0-9-]{10,}/ },
  { kind: 'Google API key', re: /\bAIza[0-9A-Za-z_-]{35}\b/ },
  { kind: 'Stripe secret key', re: /\b[sr]k_live_[0-9A-Za-z]{20,}\b/ },
]

const GENERIC =
  /\b[\w.-]*(?:api[_-]?key|secret|token|passwd|password|private[_-]?key|access[_-]?key|auth)[\w.-]*["']?\s*[:=]\s*["']([^"'\s]{16,})["']/i
const PLACEHOLDER =
  /(your|example|changeme|placeholder|dummy|xxxx|test|fake|sample|redacted|<|\$\{|process\.env)/i

/** Shannon entropy in bits per character. */
function entropy(s: string): number {
  const counts = new Map<string, number>()
  for (const ch of s) counts.set(ch, (counts.get(ch) ?? 0) + 1)
  let bits = 0
  for (const n of counts.values()) {
    const p = n / s.length
    bits -= p * Math.log2(p)
  }
  return bits
}

function mask(secret: string): string {
  if (secret.length <= 8) return '****'
  return `${secret.slice(0, 4)}…${secret.slice(-2)} (${secret.length} chars)`
}

/** Scans one line; null when it holds nothing that looks like a credential. */
export function findSecret(text: string): { kind: string; preview: string } | null {
  for (const { kind, re } of PATTERNS) {
    const m = re.exec(text)
    // Documentation's sample keys (AWS's AKIAIOSFODNN7EXAMPLE) are not secrets.
    if (m && !/EXAMPLE/i.test(m[0])) return { kind, preview: mask(m[0]) }
  }
  const g = GENERIC.exec(text)
  if (g) {
    const value = g[1]!
    if (!PLACEHOLDER.test(value) && entropy(value) >= 3.5)
      return { kind: 'hard-coded credential', preview: mask(value) }
  }
  return null
}

/** Every finding in the added lines of each changed file. Async: a rule set may need to load or scan off-thread. */
export async function scanAddedLines(
  files: readonly { path: string; added: readonly { line: number; text: string }[] }[],
): Promise<SecretFinding[]> {
  const findings: SecretFinding[] = []
  for (const f of files) {
    for (const a of f.added) {
      const hit = findSecret(a.text)
      if (hit) findings.push({ path: f.path, line: a.line, ...hit })
    }
  }
  return findings
}
