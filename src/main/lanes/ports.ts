// Each lane's own block of ports and environment, so two lanes' dev servers and test databases never collide.

/** Lane numbers run from 1; 0 is the serial build (no lane). */
export const MAX_LANE = 64
/** Ports per lane: RALPH_LANE_PORT is the first, the next nine are the lane's too. */
export const PORTS_PER_LANE = 10
/** Lane N's block starts at BASE + N × 10: 42010 for lane 1 … 42640 for lane 64, clear of common dev ports. */
export const LANE_PORT_BASE = 42000

export interface LanePorts {
  first: number
  last: number
}

export function assertLaneNumber(lane: number): void {
  if (!Number.isInteger(lane) || lane < 1 || lane > MAX_LANE) {
    throw new RangeError(`A lane number is a whole number from 1 to ${MAX_LANE}; got ${String(lane)}.`)
  }
}

export function lanePorts(lane: number): LanePorts {
  assertLaneNumber(lane)
  const first = LANE_PORT_BASE + lane * PORTS_PER_LANE
  return { first, last: first + PORTS_PER_LANE - 1 }
}

/** What a lane's processes get on top of the sandbox's environment. */
export function laneEnv(lane: number): Record<'RALPH_LANE' | 'RALPH_LANE_PORT' | 'RALPH_LANE_PORTS', string> {
  const { first, last } = lanePorts(lane)
  return { RALPH_LANE: String(lane), RALPH_LANE_PORT: String(first), RALPH_LANE_PORTS: `${first}-${last}` }
}
