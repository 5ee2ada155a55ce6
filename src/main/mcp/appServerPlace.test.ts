import { statSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { appServerHome, pathOutside } from './appServerPlace'

describe('where an app-level server runs', () => {
  it('has a PATH with nothing of the project, nor relative or empty entries', () => {
    expect(
      pathOutside('/p/node_modules/.bin::./bin:node_modules/.bin:/usr/bin:/real/p/tools:/p2/bin:/bin', [
        '/p',
        '/real/p',
      ]),
    ).toBe('/usr/bin:/p2/bin:/bin')
    expect(pathOutside('/p/bin', ['/p'])).toBe('/usr/local/bin:/usr/bin:/bin')
  })

  it('gets a private home per server and project, the same one each time', async () => {
    const a = await appServerHome('github', '/p')
    expect(await appServerHome('github', '/p')).toBe(a)
    expect(await appServerHome('github', '/q')).not.toBe(a)
    expect(await appServerHome('other', '/p')).not.toBe(a)
    expect(statSync(a).mode & 0o077).toBe(0)
  })
})
