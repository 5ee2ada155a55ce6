// Issue 34: `ralph run` takes the API's limits (src/shared/api/tasks.ts): at most 8 images, a message of at most
// 100,000 characters. Both are refused before any image is read or any model is called.
import { describe, expect, it } from 'vitest'
import { runCli } from '../../helpers/cli'
import { makeTempDir } from '../../helpers/tempDir'

describe('ralph run limits', () => {
  it('refuses a 9th --image and an over-long message with a usage error (exit 2)', async () => {
    const dir = makeTempDir('ralph-run-limits-')
    const home = makeTempDir('ralph-run-limits-home-')
    try {
      const env = { RALPH_HOME: home.path }
      const images = Array.from({ length: 9 }, (_, i) => ['--image', `missing-${i}.png`]).flat()
      const nine = await runCli(['run', 'fix the page', ...images, '--project', dir.path], { env })
      expect(nine.code).toBe(2)
      expect(nine.stderr).toContain('Attach at most 8 images to a task (--image was given 9 times).')
      const long = await runCli(['run', 'x'.repeat(100_001), '--project', dir.path], { env })
      expect(long.code).toBe(2)
      expect(long.stderr).toContain('A message can be at most 100,000 characters (this one has 100,001).')
    } finally {
      dir.cleanup()
      home.cleanup()
    }
  }, 60_000)
})
