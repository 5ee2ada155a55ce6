import { describe, expect, it } from 'vitest'
import { formatVerdictBlock, newNonce, NONCE_PATTERN, parseVerdictBlock } from './verdictBlock'

const nonce = '3FA9C1'
const ref = 'AC2'
const expected = { ref, nonce }
const good = formatVerdictBlock(ref, nonce, 'YES', 'The handler returns 404 for unknown ids.')

const errorOf = (raw: string) => {
  const r = parseVerdictBlock(raw, expected)
  if (r.ok) throw new Error(`expected a parse error for ${JSON.stringify(raw)}`)
  return r.error
}

describe('newNonce', () => {
  it('is 6 uppercase hex digits, different each time', () => {
    const nonces = new Set(Array.from({ length: 50 }, () => newNonce()))
    for (const n of nonces) expect(n).toMatch(NONCE_PATTERN)
    expect(nonces.size).toBeGreaterThan(45)
  })
})

describe('parseVerdictBlock', () => {
  it('reads a well-formed YES and NO', () => {
    expect(parseVerdictBlock(good, expected)).toEqual({
      ok: true,
      answer: 'YES',
      reason: 'The handler returns 404 for unknown ids.',
    })
    const no = formatVerdictBlock(ref, nonce, 'NO', "Missing file 'src/a.ts'")
    expect(parseVerdictBlock(no, expected)).toEqual({
      ok: true,
      answer: 'NO',
      reason: "Missing file 'src/a.ts'",
    })
  })

  it('tolerates blank lines and a trailing newline around the block', () => {
    expect(parseVerdictBlock(`\n${good}\n\n`, expected).ok).toBe(true)
  })

  it('rejects another nonce, in the opener or the closer', () => {
    expect(errorOf(good.replaceAll(nonce, 'ABCDEF'))).toMatch(/nonce 3FA9C1/)
    expect(errorOf(good.replace(`END_VERDICT:AC2:NONCE=${nonce}`, 'END_VERDICT:AC2:NONCE=000000'))).toMatch(
      /nonce/,
    )
    expect(errorOf(good.replaceAll(nonce, '3fa9c1'))).toMatch(/nonce/)
  })

  it('rejects a block for another criterion', () => {
    expect(errorOf(good.replaceAll('AC2', 'AC3'))).toMatch(/answers AC3, not AC2/)
    expect(errorOf(good.replace('END_VERDICT:AC2', 'END_VERDICT:AC1'))).toMatch(/answers AC1, not AC2/)
  })

  it('rejects two blocks, even when both are valid', () => {
    expect(errorOf(`${good}\n${good}`)).toMatch(/more than one verdict block/)
  })

  it('rejects prose or a code fence outside the block', () => {
    expect(errorOf(`Here is my verdict:\n${good}`)).toMatch(/text outside the block/)
    expect(errorOf(`${good}\nHope this helps.`)).toMatch(/text outside the block/)
    expect(errorOf('```\n' + good + '\n```')).toMatch(/text outside the block/)
  })

  it('rejects a missing opener, closer, or a closer before the opener', () => {
    expect(errorOf('ANSWER=YES\nREASON="ok"')).toMatch(/no <<<VERDICT opener/)
    expect(errorOf(good.split('\n').slice(0, 3).join('\n'))).toMatch(/no <<<END_VERDICT closer/)
    const [o, a, r, c] = good.split('\n')
    expect(errorOf([c, a, r, o].join('\n'))).toMatch(/closer comes before the opener/)
  })

  it('rejects a missing key, an extra key, a repeated key and the wrong order', () => {
    const [o, a, r, c] = good.split('\n') as [string, string, string, string]
    expect(errorOf([o, r, c].join('\n'))).toMatch(/ANSWER= line is missing/)
    expect(errorOf([o, a, c].join('\n'))).toMatch(/REASON= line is missing/)
    expect(errorOf([o, a, r, 'CONFIDENCE=HIGH', c].join('\n'))).toMatch(/exactly two lines.*CONFIDENCE/)
    expect(errorOf([o, a, a, r, c].join('\n'))).toMatch(/exactly two lines/)
    expect(errorOf([o, a, '', r, c].join('\n'))).toMatch(/exactly two lines/)
    expect(errorOf([o, r, a, c].join('\n'))).toMatch(/ANSWER= must come first/)
  })

  it('rejects an answer other than bare YES or NO', () => {
    expect(errorOf(good.replace('ANSWER=YES', 'ANSWER="YES"'))).toMatch(/YES or NO, unquoted/)
    expect(errorOf(good.replace('ANSWER=YES', 'ANSWER=yes'))).toMatch(/YES or NO/)
    expect(errorOf(good.replace('ANSWER=YES', 'ANSWER=MAYBE'))).toMatch(/YES or NO/)
    expect(errorOf(good.replace('ANSWER=YES', 'ANSWER = YES'))).toMatch(/ANSWER= line is missing/)
  })

  it('rejects an unquoted, half-quoted, empty, escaped or over-long REASON', () => {
    expect(errorOf(good.replace(/REASON=".*"/, 'REASON=fine'))).toMatch(/double quotes/)
    expect(errorOf(good.replace(/REASON=".*"/, 'REASON="fine'))).toMatch(/double quotes/)
    expect(errorOf(good.replace(/REASON=".*"/, 'REASON=""'))).toMatch(/double quotes|empty/)
    expect(errorOf(good.replace(/REASON=".*"/, 'REASON="  "'))).toMatch(/empty/)
    expect(errorOf(good.replace(/REASON=".*"/, 'REASON="say "hi""'))).toMatch(/double quote inside/)
    expect(errorOf(good.replace(/REASON=".*"/, 'REASON="C:\\path"'))).toMatch(/backslash/)
    expect(errorOf(good.replace(/REASON=".*"/, `REASON="${'x'.repeat(501)}"`))).toMatch(/501 characters/)
    expect(parseVerdictBlock(good.replace(/REASON=".*"/, `REASON="${'x'.repeat(500)}"`), expected).ok).toBe(
      true,
    )
  })

  it('rejects CRLF line endings', () => {
    expect(errorOf(good.replaceAll('\n', '\r\n'))).toMatch(/CRLF/)
  })

  it('rejects a malformed opener or a V2 block', () => {
    expect(errorOf(good.replace('VERDICT:V1', 'VERDICT:V2'))).toMatch(/opener line is not exactly/)
    expect(
      errorOf(good.replace(`<<<VERDICT:V1:AC2:NONCE=${nonce}>>>`, `  <<<VERDICT:V1:AC2:NONCE=${nonce}>>>`)),
    ).toMatch(/opener line/)
  })
})
