import { expect, it } from 'vitest'
import { AppError } from '../../shared/errors'
import { checkStep, newCheck, noopJobReport, parseCheckLine } from './workersCheck'

it("the no-op job's report line is found among the image's other lines, and read into one shape", () => {
  expect(parseCheckLine('Welcome to the image')).toBeNull()
  expect(parseCheckLine('{"type":"other","node":"v20"}')).toBeNull()
  const line = parseCheckLine(
    '{"type":"worker.check","node":"v20.1.0","git":"git version 2.47.0","file":"x"}',
  )
  expect(line).toMatchObject({ node: 'v20.1.0', git: 'git version 2.47.0', ralph: null, file: 'x' })
  const failed = (why: string) => new AppError('task-failed', why)
  expect(noopJobReport(line, 12, failed)).toEqual({
    node: 'v20.1.0',
    git: '2.47.0',
    ralph: null,
    durationMs: 12,
  })
  expect(() => noopJobReport(null, 1, failed)).toThrow(/printed no report/)
  expect(() => noopJobReport({ node: 'v20', git: null, ralph: null }, 1, failed)).toThrow(
    /git is not in the image/,
  )
})

it('a check stops at the first step that fails, with its one sentence; Stop is not a failed step', async () => {
  const check = newCheck<'engine' | 'job'>('docker: local')
  const step = checkStep(check)
  expect(await step('engine', async () => 'up')).toBe('up')
  expect(
    await step('job', async () => {
      throw new AppError('config', 'The image is missing.')
    }),
  ).toBeNull()
  expect(check).toEqual({
    ok: false,
    where: 'docker: local',
    job: null,
    problem: 'The image is missing.',
    failed: 'job',
  })
  await expect(
    step('engine', async () => {
      throw new AppError('cancelled', 'Stopped.')
    }),
  ).rejects.toThrow('Stopped.')
})
