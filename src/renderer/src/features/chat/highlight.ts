/**
 * A small syntax highlighter for the code on a task card (a diff of a file the model wrote): one regular expression
 * per family of languages, line by line. Light enough for many cards; Monaco stays for the full-size views.
 */

export type TokenKind = 'comment' | 'string' | 'number' | 'keyword' | 'tag' | 'attr' | 'plain'
export interface Token {
  kind: TokenKind
  text: string
}

type Family = 'c' | 'css' | 'markup' | 'hash' | 'plain'

const byExtension: Record<string, Family> = {
  js: 'c',
  jsx: 'c',
  mjs: 'c',
  cjs: 'c',
  ts: 'c',
  tsx: 'c',
  mts: 'c',
  cts: 'c',
  json: 'c',
  java: 'c',
  c: 'c',
  h: 'c',
  cpp: 'c',
  cs: 'c',
  go: 'c',
  rs: 'c',
  swift: 'c',
  kt: 'c',
  php: 'c',
  css: 'css',
  scss: 'css',
  less: 'css',
  html: 'markup',
  htm: 'markup',
  xml: 'markup',
  svg: 'markup',
  vue: 'markup',
  py: 'hash',
  sh: 'hash',
  bash: 'hash',
  rb: 'hash',
  yml: 'hash',
  yaml: 'hash',
  toml: 'hash',
}

export function familyOf(path: string): Family {
  const ext = /\.([a-z0-9]+)$/i.exec(path)?.[1]?.toLowerCase() ?? ''
  return byExtension[ext] ?? 'plain'
}

const STR = String.raw`"(?:[^"\\]|\\.)*"?|'(?:[^'\\]|\\.)*'?`
const NUM = String.raw`\b\d[\d_]*(?:\.\d+)?(?:e[+-]?\d+)?\b|\b0x[\da-fA-F]+\b`

const C_WORDS =
  'const|let|var|function|return|if|else|for|while|do|import|export|from|as|class|new|async|await|type|interface|' +
  'extends|implements|default|true|false|null|undefined|this|of|in|try|catch|finally|throw|switch|case|break|' +
  'continue|typeof|instanceof|void|yield|static|public|private|protected|readonly|enum|package|func|fn|struct|impl|pub|use|mut|int|string|bool'
const HASH_WORDS =
  'def|class|return|if|elif|else|for|while|in|import|from|as|with|try|except|finally|raise|lambda|pass|break|' +
  'continue|and|or|not|is|None|True|False|true|false|null|yes|no|echo|then|fi|do|done|end|module|require'

/** Each family's patterns, in order; a group's name is the token kind it makes. */
const patterns: Record<Exclude<Family, 'plain'>, RegExp> = {
  c: new RegExp(
    String.raw`(?<comment>\/\/.*|\/\*.*?(?:\*\/|$))|(?<string>${STR}|` +
      '`(?:[^`\\\\]|\\\\.)*`?' +
      String.raw`)|(?<number>${NUM})|(?<keyword>\b(?:${C_WORDS})\b)|(?<tag><\/?[A-Za-z][\w.]*(?=[\s/>]))`,
    'g',
  ),
  css: new RegExp(
    String.raw`(?<comment>\/\*.*?(?:\*\/|$))|(?<string>${STR})|(?<keyword>@[\w-]+|!important)|(?<attr>[\w-]+(?=\s*:(?!:)))|(?<number>#[\da-f]{3,8}\b|-?\d*\.?\d+(?:px|em|rem|%|vh|vw|s|ms|deg|fr)?\b)|(?<tag>[.#]?[a-z][\w-]*(?=[^;{}]*\{))`,
    'gi',
  ),
  markup: new RegExp(
    String.raw`(?<comment><!--.*?(?:-->|$))|(?<tag><\/?[\w:-]+|\/?>)|(?<attr>\b[\w:-]+(?==))|(?<string>${STR})`,
    'gi',
  ),
  hash: new RegExp(
    String.raw`(?<comment>#.*)|(?<string>${STR})|(?<number>${NUM})|(?<keyword>\b(?:${HASH_WORDS})\b)|(?<attr>^\s*[\w.-]+(?=\s*[:=]))`,
    'g',
  ),
}

/** One line as tokens; the whole line as plain text for a file of an unknown kind. */
export function tokenize(line: string, family: Family): Token[] {
  if (family === 'plain' || !line) return [{ kind: 'plain', text: line }]
  const re = patterns[family]
  re.lastIndex = 0
  const out: Token[] = []
  let at = 0
  for (let m = re.exec(line); m; m = re.exec(line)) {
    if (m[0] === '') {
      re.lastIndex++
      continue
    }
    if (m.index > at) out.push({ kind: 'plain', text: line.slice(at, m.index) })
    const kind = (Object.entries(m.groups ?? {}).find(([, v]) => v !== undefined)?.[0] ??
      'plain') as TokenKind
    out.push({ kind, text: m[0] })
    at = m.index + m[0].length
  }
  if (at < line.length) out.push({ kind: 'plain', text: line.slice(at) })
  return out
}
