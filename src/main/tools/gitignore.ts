// A small .gitignore matcher (root and nested files) so list_files and grep hide what snapshots ignore.
// Covers the common syntax: comments, negation, anchoring, trailing '/', *, ?, ** and [classes].

export interface IgnoreRule {
  /** Folder (project-relative, '' for root) whose .gitignore holds the rule. */
  base: string
  negate: boolean
  dirOnly: boolean
  regex: RegExp
}

function globToRegex(glob: string): string {
  let out = ''
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!
    if (c === '*') {
      if (glob[i + 1] === '*') {
        const atStart = i === 0 || glob[i - 1] === '/'
        const next = glob[i + 2]
        if (atStart && next === '/') {
          out += '(?:.*/)?'
          i += 2
          continue
        }
        if (atStart && next === undefined) {
          out += '.*'
          i += 1
          continue
        }
      }
      out += '[^/]*'
    } else if (c === '?') out += '[^/]'
    else if (c === '[') {
      const end = glob.indexOf(']', i + 2)
      if (end === -1) out += '\\['
      else {
        let cls = glob.slice(i + 1, end)
        if (cls.startsWith('!')) cls = `^${cls.slice(1)}`
        out += `[${cls.replace(/\\/g, '\\\\')}]`
        i = end
      }
    } else if (c === '\\' && i + 1 < glob.length) {
      out += glob[++i]!.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')
    } else out += c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')
  }
  return out
}

export function parseGitignore(text: string, base = ''): IgnoreRule[] {
  const rules: IgnoreRule[] = []
  for (const raw of text.split(/\r?\n/)) {
    let line = raw.replace(/(?<!\\)\s+$/, '')
    if (line === '' || line.startsWith('#')) continue
    let negate = false
    if (line.startsWith('!')) {
      negate = true
      line = line.slice(1)
    } else if (line.startsWith('\\!') || line.startsWith('\\#')) line = line.slice(1)
    let dirOnly = false
    if (line.endsWith('/')) {
      dirOnly = true
      line = line.replace(/\/+$/, '')
    }
    if (line === '') continue
    const anchored = line.includes('/')
    if (line.startsWith('/')) line = line.slice(1)
    try {
      const body = globToRegex(line)
      rules.push({ base, negate, dirOnly, regex: new RegExp(anchored ? `^${body}$` : `^(?:.*/)?${body}$`) })
    } catch (err) {
      // A pattern we cannot translate is skipped rather than hiding or showing everything.
      if (!(err instanceof SyntaxError)) throw err
    }
  }
  return rules
}

/** Git semantics: the last matching rule wins; a negation re-includes. */
export function isIgnored(rules: readonly IgnoreRule[], rel: string, isDir: boolean): boolean {
  let ignored = false
  for (const r of rules) {
    if (r.dirOnly && !isDir) continue
    let sub: string
    if (r.base === '') sub = rel
    else if (rel.startsWith(`${r.base}/`)) sub = rel.slice(r.base.length + 1)
    else continue
    if (r.regex.test(sub)) ignored = !r.negate
  }
  return ignored
}
