import { randomBytes } from 'node:crypto'
import { expect, it } from 'vitest'
import { ResultCollector, resultLines } from './kubernetesResultLines'

it("a result's tar goes through log lines and comes back byte for byte, other lines left to the caller", () => {
  const tar = randomBytes(5000)
  const lines = resultLines(tar)
  expect(lines.every((l) => l.length <= 120)).toBe(true)
  const c = new ResultCollector()
  const others = ['{"type":"worker.finished"}', ...lines, 'trailing chatter'].filter((l) => !c.take(l))
  expect(others).toEqual(['{"type":"worker.finished"}', 'trailing chatter'])
  expect(c.finish()).toEqual(tar)
})

it('a log without a result gives null; a cut-off or altered one is refused', () => {
  expect(new ResultCollector().finish()).toBeNull()
  const lines = resultLines(randomBytes(800))
  const cut = new ResultCollector()
  lines.slice(0, -2).forEach((l) => cut.take(l))
  expect(() => cut.finish()).toThrow(/cut off.*no end marker/)
  const altered = new ResultCollector()
  lines.forEach((l, i) => altered.take(i === 2 ? l.replace(/^./, l[0] === 'A' ? 'B' : 'A') : l))
  expect(() => altered.finish()).toThrow(/does not match its digest/)
})
