// Claude Code's usage-limit messages and when they say the limit resets. The forms seen across its versions:
// - "Claude AI usage limit reached|1798765200" (older versions: the reset as epoch seconds after a bar);
// - "5-hour limit reached ∙ resets 3pm", "You've hit your 5-hour limit · resets 5:09am (UTC)", "… · resets Aug 8, 3pm",
//   "… resets Jan 1, 2027, 1am (UTC)", "… · resets Aug 8" (newer versions: a wall-clock time in the machine's zone
//   or the one named, or a day);
// - "… resets in 2h 5m";
// - a `rate_limit_event` line whose `rate_limit_info` has `status: "rejected"` and `resetsAt` (epoch seconds).

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec']

/** Words that make an error a usage limit (a subscription's window or an account's cap), not a failure. */
const LIMIT_WORDS =
  /usage limit|limit reached|limit has been reached|hit your (?:\S+ )?limit|out of (?:extra )?usage|resets? (?:at|in) |\bresets \d/i

export function isUsageLimitMessage(text: string): boolean {
  return LIMIT_WORDS.test(text)
}

/** Epoch seconds or milliseconds as epoch ms. */
export function epochMs(value: number): number | null {
  if (!Number.isFinite(value) || value <= 0) return null
  return value > 1e12 ? Math.round(value) : Math.round(value * 1000)
}

/** The zone's offset from UTC (ms) at the instant `utcMs`, or null for a zone Intl does not know. */
function zoneOffsetMs(zone: string, utcMs: number): number | null {
  let parts: Intl.DateTimeFormatPart[]
  try {
    parts = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    }).formatToParts(new Date(utcMs))
  } catch (err) {
    if (err instanceof RangeError) return null // not a zone name
    throw err
  }
  const n = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? 0)
  const asUtc = Date.UTC(n('year'), n('month') - 1, n('day'), n('hour'), n('minute'), n('second'))
  return asUtc - Math.floor(utcMs / 1000) * 1000
}

interface Wall {
  year: number
  month: number // 0-11
  day: number
  hour: number
  minute: number
}

/** The instant a wall-clock time names, in `zone` (IANA name) or the machine's local zone. */
function wallToMs(wall: Wall, zone: string | null): number | null {
  if (!zone) return new Date(wall.year, wall.month, wall.day, wall.hour, wall.minute).getTime()
  const guess = Date.UTC(wall.year, wall.month, wall.day, wall.hour, wall.minute)
  const first = zoneOffsetMs(zone, guess)
  if (first === null) return null
  const second = zoneOffsetMs(zone, guess - first)
  return guess - (second ?? first)
}

/** Today's date fields in `zone` (or local) at `now`. */
function today(now: number, zone: string | null): { year: number; month: number; day: number } {
  const offset = zone ? zoneOffsetMs(zone, now) : null
  const d = offset === null ? new Date(now) : new Date(now + offset)
  return offset === null
    ? { year: d.getFullYear(), month: d.getMonth(), day: d.getDate() }
    : { year: d.getUTCFullYear(), month: d.getUTCMonth(), day: d.getUTCDate() }
}

const RESETS =
  /resets?\s+(?:at\s+|on\s+)?(?:(?<mon>jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+(?<day>\d{1,2})(?:st|nd|rd|th)?(?:,?\s*(?<year>\d{4}))?,?\s*(?:at\s+)?)?(?:(?<hour>\d{1,2})(?::(?<min>\d{2}))?\s*(?<ampm>am|pm)?)?\s*(?:\((?<zone>[A-Za-z_]+(?:\/[A-Za-z_+-]+)*)\))?/i

/** "resets 3pm", "resets 10:30am (Europe/London)", "resets Aug 8, 3pm", "resets Aug 8": the next such time. */
function parseResetsClock(text: string, now: number): number | null {
  const m = RESETS.exec(text)
  if (!m?.groups) return null
  const { mon, day, year, hour, min, ampm, zone } = m.groups
  if (!mon && (!hour || (!ampm && !min))) return null // "resets 3" alone is not a time
  const tz = zone && zone.includes('/') ? zone : zone === 'UTC' ? 'UTC' : null
  let h = hour ? Number(hour) : 0
  if (ampm) h = (h % 12) + (ampm.toLowerCase() === 'pm' ? 12 : 0)
  const minute = min ? Number(min) : 0
  if (h > 23 || minute > 59) return null
  const base = today(now, tz)
  if (mon) {
    const month = MONTHS.indexOf(mon.toLowerCase())
    const wall = { year: year ? Number(year) : base.year, month, day: Number(day), hour: h, minute }
    const at = wallToMs(wall, tz)
    if (at === null || year) return at
    // A date already past (without its year) names next year's.
    return at > now - 86_400_000 ? at : wallToMs({ ...wall, year: wall.year + 1 }, tz)
  }
  const at = wallToMs({ ...base, hour: h, minute }, tz)
  if (at === null) return null
  return at > now ? at : wallToMs({ ...base, day: base.day + 1, hour: h, minute }, tz)
}

/** "resets in 2h 5m", "try again in 30 minutes". */
function parseResetsIn(text: string, now: number): number | null {
  const m = /(?:resets?|try again|retry)\s+in\s+([^.;·∙|]+)/i.exec(text)
  if (!m) return null
  const re = /(\d+(?:\.\d+)?)\s*(d|days?|h|hours?|hrs?|m|minutes?|mins?|s|seconds?|secs?)(?![a-z])/gi
  let total = 0
  let found = false
  for (const part of m[1]!.matchAll(re)) {
    found = true
    const n = Number(part[1])
    const unit = part[2]!.toLowerCase()
    total +=
      n *
      (unit.startsWith('d')
        ? 86_400_000
        : unit.startsWith('h')
          ? 3_600_000
          : unit.startsWith('m')
            ? 60_000
            : 1000)
  }
  return found ? now + Math.round(total) : null
}

/** When a usage-limit message says the limit resets (epoch ms), or null when it does not say. */
export function parseResetAt(text: string, now: number = Date.now()): number | null {
  const bar = /\|\s*(\d{9,14})\b/.exec(text)
  if (bar) return epochMs(Number(bar[1]))
  return parseResetsIn(text, now) ?? parseResetsClock(text, now)
}
