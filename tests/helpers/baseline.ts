import { expect } from 'vitest'

/** Any way to make a contract call: a core's `dispatch`, or `callApi` against a web host. */
type Call = (name: string, input: unknown) => Promise<{ ok: boolean; value?: unknown; error?: unknown }>

/**
 * Resolves once no baseline snapshot runs for the project. `projects.open` starts one in the background for every
 * project without snapshots (DESIGN.md §5): a test that counts snapshots, compares the store's files, or starts a
 * task and expects the baseline in its timeline waits for it first. (A task started meanwhile is correct either
 * way: it waits for a baseline already reading, and one that had not started yet gives way to the task.)
 */
export async function baselineSettled(call: Call, projectId: number, timeout = 60_000): Promise<void> {
  await expect
    .poll(
      async () => {
        const state = await call('snapshots.baselineState', { projectId })
        if (!state.ok) throw new Error(`snapshots.baselineState failed: ${JSON.stringify(state.error)}`)
        return state.value
      },
      { timeout, interval: 50 },
    )
    .toBeNull()
}
