import { describe, expect, it } from 'vitest'
import { laneEnv, lanePorts, MAX_LANE, PORTS_PER_LANE } from './ports'

describe('lanePorts', () => {
  it('gives each lane its own block of ten ports, none shared between lanes', () => {
    const seen = new Set<number>()
    for (let lane = 1; lane <= MAX_LANE; lane++) {
      const { first, last } = lanePorts(lane)
      expect(last - first + 1).toBe(PORTS_PER_LANE)
      for (let p = first; p <= last; p++) {
        expect(seen.has(p)).toBe(false)
        seen.add(p)
      }
    }
    expect(Math.max(...seen)).toBeLessThan(65536)
    expect(lanePorts(2).first - lanePorts(1).first).toBe(10)
  })

  it('refuses a lane number that is not 1..64', () => {
    for (const bad of [0, -1, 1.5, MAX_LANE + 1, Number.NaN]) expect(() => lanePorts(bad)).toThrow(/1 to 64/)
  })

  it("puts the lane and its first port into the lane's environment", () => {
    expect(laneEnv(3)).toEqual({
      RALPH_LANE: '3',
      RALPH_LANE_PORT: String(lanePorts(3).first),
      RALPH_LANE_PORTS: `${lanePorts(3).first}-${lanePorts(3).last}`,
    })
  })
})
