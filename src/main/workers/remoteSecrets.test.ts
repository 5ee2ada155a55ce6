import { expect, it } from 'vitest'
import { remoteSecretVar, tickedSecrets } from './remoteSecrets'

it('only the ticked vault secrets are read, each as RALPH_SECRET_<NAME>; a ticked one missing is named', () => {
  const read: string[] = []
  const vault = {
    secret: (name: string) => {
      read.push(name)
      return (
        ({ GITHUB_TOKEN: 'ghp-value', 'db.pass': 'pw-value', OTHER: 'never' } as Record<string, string>)[
          name
        ] ?? null
      )
    },
  }
  expect(tickedSecrets(vault, ['GITHUB_TOKEN', 'db.pass'])).toEqual({
    RALPH_SECRET_GITHUB_TOKEN: 'ghp-value',
    RALPH_SECRET_DB_PASS: 'pw-value',
  })
  expect(read).toEqual(['GITHUB_TOKEN', 'db.pass'])
  expect(tickedSecrets(vault, [])).toEqual({})
  expect(() => tickedSecrets(vault, ['GONE'])).toThrow(
    /The vault secret "GONE" is ticked for remote workers \("workers.remoteSecrets"\), but the vault holds no value/,
  )
  expect(() => tickedSecrets(null, ['GITHUB_TOKEN'])).toThrow(/holds no value/)
  expect(remoteSecretVar('a-b')).toBe('RALPH_SECRET_A_B')
})
