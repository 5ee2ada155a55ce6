// What Codex's error messages mean for Ralph: a usage limit (with when it resets), a missing or refused login, or
// any other failure of the model's service. The texts are Codex's own (codex-cli 0.169.0), as `exec --json` prints
// them in `error` and `turn.failed` events.

/**
 * A usage limit. Codex says "You’ve hit your usage limit. … try again at 3:59 AM." (the same day), "… try again at
 * Nov 30th, 2026 3:00 AM." (a later day), or "… Try again later." (no reset time known), from the service's 429
 * `usage_limit_reached` reply. Not one: the API's `insufficient_quota` ("Quota exceeded. Check your plan and billing
 * details." — no credit, nothing to wait for) and a rate limit it gave up retrying ("exceeded retry limit, last
 * status: 429 Too Many Requests").
 */
const LIMIT = /hit your usage limit|usage limit (?:has been )?reached|usage_limit_reached/i

/**
 * A login that is missing or refused: the service's 401 ("unexpected status 401 Unauthorized: …"), a provider
 * whose `env_key` variable is unset ("Missing environment variable: `OPENAI_API_KEY`."), or an expired ChatGPT login
 * whose token cannot be refreshed.
 */
const NOT_LOGGED_IN =
  /\b401\b|unauthorized|not logged in|missing environment variable|invalid_api_key|incorrect api key|no api key|please (?:log|sign) ?in|codex login|refresh token|token (?:is )?expired|re-?authenticate/i

export type CodexErrorKind = 'limit' | 'not-logged-in' | 'provider'

export function classifyError(message: string): CodexErrorKind {
  if (LIMIT.test(message)) return 'limit'
  if (NOT_LOGGED_IN.test(message)) return 'not-logged-in'
  return 'provider'
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec']

/**
 * When a usage limit resets (epoch ms), from Codex's "try again at …" in the machine's local time (Codex formats
 * it in its local zone, and the engine runs on this machine): a time alone is its next occurrence after `now`.
 * Null when the message names no time.
 */
export function resetAtOf(message: string, now: number = Date.now()): number | null {
  const m =
    /try again at\s+(?:([A-Za-z]{3})[a-z]*\.? (\d{1,2})(?:st|nd|rd|th)?,? (\d{4}),? )?(\d{1,2}):(\d{2})\s*([AP]M)?/i.exec(
      message,
    )
  if (!m) return null
  let hour = Number(m[4]) % 24
  const minute = Number(m[5])
  const meridiem = m[6]?.toUpperCase()
  if (meridiem === 'PM' && hour < 12) hour += 12
  if (meridiem === 'AM' && hour === 12) hour = 0
  if (m[1]) {
    const month = MONTHS.indexOf(m[1].toLowerCase())
    if (month < 0) return null
    return new Date(Number(m[3]), month, Number(m[2]), hour, minute).getTime()
  }
  const at = new Date(now)
  at.setHours(hour, minute, 0, 0)
  if (at.getTime() <= now) at.setDate(at.getDate() + 1)
  return at.getTime()
}

/** The configuration keys Ralph sets with `-c` (a config error naming one is this version not knowing it). */
const RALPH_KEYS =
  /analytics|feedback|check_for_update_on_startup|history\.persistence|features\.|developer_instructions|mcp_servers\.ralph/

/**
 * Codex could not start with the arguments it was given: a flag this version does not know (clap's "error:
 * unexpected argument '--ephemeral' found"), or a setting Ralph passes that it cannot read ("Error loading
 * config.toml: unknown variant `none` … in `history.persistence`"). A config error in the user's own settings is
 * not one.
 */
export function isVersionMismatch(stderr: string): boolean {
  if (
    /unexpected argument|unrecognized (?:option|argument|subcommand)|invalid value '.*' for '-/i.test(stderr)
  )
    return true
  const config = /Error loading config[^\n]*\n?[^\n]*/i.exec(stderr)
  return config !== null && RALPH_KEYS.test(config[0])
}
