import { describe, expect, it } from 'vitest'
import { findSecret, scanAddedLines } from './secrets'

describe('findSecret', () => {
  it('finds provider token shapes and private keys', () => {
    expect(findSecret('const k = "AKIAQ3ZLMN4PRT7XVW2Y"')?.kind).toBe('AWS access key id')
    expect(findSecret('-----BEGIN OPENSSH PRIVATE KEY-----')?.kind).toBe('private key')
    expect(findSecret(`token: ghp_${'a1B2'.repeat(9)}`)?.kind).toBe('GitHub token')
    expect(findSecret(`OPENAI=sk-proj-${'Zx9_'.repeat(10)}`)?.kind).toBe('OpenAI API key')
    expect(findSecret(`key = "sk-ant-api03-${'q'.repeat(30)}"`)?.kind).toBe('Anthropic API key')
  })

  it('finds a hard-coded high-entropy credential, not a placeholder or an env lookup', () => {
    expect(findSecret('const apiKey = "f9Kq2LmZ8xR4tW7vB1nC"')?.kind).toBe('hard-coded credential')
    expect(findSecret('const apiKey = "your-api-key-goes-here"')).toBeNull()
    expect(findSecret('const password = "aaaaaaaaaaaaaaaaaaaa"')).toBeNull()
    expect(findSecret('const token = process.env.TOKEN')).toBeNull()
    expect(findSecret('const label = "a perfectly ordinary sentence"')).toBeNull()
    expect(findSecret('aws_access_key_id = AKIAIOSFODNN7EXAMPLE')).toBeNull()
  })

  it('never returns the secret itself', () => {
    const secret = 'f9Kq2LmZ8xR4tW7vB1nC'
    const hit = findSecret(`const apiKey = "${secret}"`)!
    expect(hit.preview).not.toContain(secret)
    expect(hit.preview).toContain('20 chars')
  })
})

describe('scanAddedLines', () => {
  it('reports file and line of each finding', async () => {
    const findings = await scanAddedLines([
      {
        path: 'src/a.ts',
        added: [
          { line: 3, text: 'ok' },
          { line: 4, text: 'AKIAQ3ZLMN4PRT7XVW2Y' },
        ],
      },
      { path: 'README.md', added: [{ line: 1, text: '# hi' }] },
    ])
    expect(findings).toEqual([
      { path: 'src/a.ts', line: 4, kind: 'AWS access key id', preview: expect.any(String) },
    ])
  })
})
