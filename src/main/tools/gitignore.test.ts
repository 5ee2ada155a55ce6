import { describe, expect, it } from 'vitest'
import { isIgnored, parseGitignore } from './gitignore'

describe('gitignore matcher', () => {
  const rules = parseGitignore(
    [
      '# comment',
      '*.log',
      '!keep.log',
      '/root-only.txt',
      'tmp/',
      'docs/*.md',
      '**/gen/**',
      'a?c',
      '[xy].bin',
    ].join('\n'),
  )
  const ig = (p: string, dir = false) => isIgnored(rules, p, dir)

  it('matches basenames at any depth', () => {
    expect(ig('x.log')).toBe(true)
    expect(ig('deep/er/x.log')).toBe(true)
    expect(ig('keep.log')).toBe(false)
    expect(ig('abc')).toBe(true)
    expect(ig('x.bin')).toBe(true)
    expect(ig('z.bin')).toBe(false)
  })

  it('anchors patterns with a slash', () => {
    expect(ig('root-only.txt')).toBe(true)
    expect(ig('sub/root-only.txt')).toBe(false)
    expect(ig('docs/a.md')).toBe(true)
    expect(ig('docs/sub/a.md')).toBe(false)
  })

  it('dir-only patterns match folders only', () => {
    expect(ig('tmp', true)).toBe(true)
    expect(ig('tmp', false)).toBe(false)
    expect(ig('src/tmp', true)).toBe(true)
  })

  it('handles ** and nested bases', () => {
    expect(ig('src/gen/x.ts')).toBe(true)
    const nested = parseGitignore('*.ts\n', 'pkg')
    expect(isIgnored(nested, 'pkg/a.ts', false)).toBe(true)
    expect(isIgnored(nested, 'other/a.ts', false)).toBe(false)
  })
})
