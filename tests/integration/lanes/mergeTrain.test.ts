// The lanes build's merge train (issue #38), in process: finished tasks are merged onto a chain of candidates whose
// verifications on the merged tree run at once, each in its lane, and are applied one at a time in merge order. The
// verification is the real one; only the order in which its runs end is steered here (and one FAIL injected).
import { execFileSync } from 'node:child_process'
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { addTask, setSpec } from '../../../src/main/queue'
import { laneProjectId, projectLanesDir } from '../../../src/main/lanes'
import { MERGED_FROM_TAG } from '../../../src/main/lanes/verifyMerged'
import { runBuild, type BuildEvent } from '../../../src/main/build'
import { storePaths } from '../../../src/main/snapshots'
import { verifyTask, type VerifyRequest } from '../../../src/main/verify'
import { memoryLogger } from '../../../src/main/workspace/logFile'
import { loopFixture } from '../loop/harness'
import { CHECK_SCRIPT, writeAttempt } from '../build/buildCliFixture'

const options = { logger: memoryLogger() }
type Event = BuildEvent & { lane?: number | null; taskId?: string; task?: number; reason?: string }

/** Resolves once `ok()` holds (checked every 50 ms), or throws after `ms`. */
async function until(ok: () => boolean, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`)
    await new Promise((r) => setTimeout(r, 50))
  }
}

describe('a lanes build: the merge train', { timeout: 300_000 }, () => {
  const t = loopFixture()

  /** Three tasks, each with two attempts scripted (a rerun may need its second). */
  const setUp = async (files: [string, string][]) => {
    const { h } = t
    writeFileSync(join(h.dir, 'check.cjs'), CHECK_SCRIPT)
    writeFileSync(join(h.dir, 'spec.md'), '# Files\n')
    await setSpec({ projectDir: h.dir, spec: 'spec.md', options })
    const ids = new Map<string, [string, string]>()
    for (const [file, want] of files) {
      const note = `Write the word ${want} into ${file} and nothing else.`
      t.llm.route(
        (r) => JSON.stringify(r.body).includes(note),
        ...writeAttempt(file, want),
        ...writeAttempt(file, want),
      )
      const id = (
        await addTask({
          projectDir: h.dir,
          name: `Write ${file} as ${want}`,
          notes: note,
          accept: [`DET: \`node check.cjs ${file} ${want}\` exits 0`],
          options,
        })
      ).ids[0]!
      ids.set(id, [file, want])
    }
    return ids
  }
  const build = (events: Event[], verify: (req: VerifyRequest) => ReturnType<typeof verifyTask>) =>
    runBuild({
      projectDir: t.h.dir,
      logger: memoryLogger(),
      model: { provider: 'openai-compatible', model: 'fake-model', baseUrl: t.llm.baseUrl, apiKey: null },
      signal: new AbortController().signal,
      runs: t.h.runs,
      parallel: 3,
      appDataDir: t.h.home.path,
      env: { ...process.env, RALPH_HOME: t.h.home.path },
      emit: (e) => events.push(e as Event),
      verify,
    })
  const inPost = (task: number, file: string) => {
    try {
      execFileSync(
        'git',
        [`--git-dir=${storePaths(t.h.dir).gitDir}`, 'cat-file', '-e', `task-${task}-post:${file}`],
        { stdio: 'ignore' },
      )
      return true
    } catch {
      return false
    }
  }
  const noLaneLeft = () =>
    expect(readdirSync(projectLanesDir(t.h.home.path, laneProjectId(t.h.dir)))).toEqual([])

  it('a FAIL at k with k+1 verifying on top: k+1 is merged and verified again without k, never applied on it', async () => {
    const ids = await setUp([
      ['p.txt', 'one'],
      ['q.txt', 'two'],
      ['r.txt', 'three'],
    ])
    // The first verification on a merged tree (task k) waits until another one starts on top of it (task k+1),
    // then says FAIL. Each merged verification notes whether k's file was in the tree it ran on.
    const merged: { taskId: string; hadK: boolean }[] = []
    let k: string | null = null
    const events: Event[] = []
    const result = await build(events, async (req) => {
      if (req.fromTag !== MERGED_FROM_TAG) return verifyTask(req)
      const kFile = k ? ids.get(k)![0] : null
      merged.push({ taskId: req.task.id, hadK: kFile !== null && existsSync(join(req.projectDir, kFile)) })
      if (k === null) {
        k = req.task.id
        await until(() => merged.some((m) => m.taskId !== k), 120_000, 'a second merged verification started')
        const real = await verifyTask(req)
        const no = { answer: 'NO' as const, reason: 'the merged tree is wrong' }
        return { ...real, outcome: 'FAIL', verdicts: real.verdicts.map((v) => ({ ...v, ...no })) }
      }
      return verifyTask(req)
    })
    expect(result, JSON.stringify(events.slice(-5))).toMatchObject({ status: 'complete' })
    const behind = merged.find((m) => m.taskId !== k)!.taskId
    // k+1's first verification ran on top of k's candidate, its next one without it.
    const ofBehind = merged.filter((m) => m.taskId === behind)
    expect(ofBehind.length).toBeGreaterThanOrEqual(2)
    expect(ofBehind[0]!.hadK).toBe(true)
    expect(ofBehind.at(-1)!.hadK).toBe(false)
    // k reran on the new base with the verdict; k+1 was applied before it, and without k's work.
    expect(events.filter((e) => e.type === 'build.rerun').map((e) => e.taskId)).toEqual([k])
    const mergedEvents = events.filter((e) => e.type === 'build.merged')
    const order = mergedEvents.map((e) => e.taskId)
    expect(order.indexOf(behind)).toBeLessThan(order.indexOf(k!))
    const behindTask = mergedEvents.find((e) => e.taskId === behind)!.task!
    expect(inPost(behindTask, ids.get(k!)![0])).toBe(false)
    expect(inPost(behindTask, ids.get(behind)![0])).toBe(true)
    for (const [file, want] of ids.values())
      expect(readFileSync(join(t.h.dir, file), 'utf8').trim()).toBe(want)
    noLaneLeft()
  })

  it('a conflict in the chain: the cars behind build on the candidate before it; the task reruns on the new base', async () => {
    const ids = await setUp([
      ['a.txt', 'alpha'],
      ['one.txt', 'x'],
      ['one.txt', 'y'],
    ])
    const events: Event[] = []
    // Every merged verification waits until all three tasks joined the train: the conflict is found behind a
    // candidate that is still being verified.
    const joined = () => new Set(events.filter((e) => e.type === 'build.merging').map((e) => e.taskId)).size
    const result = await build(events, async (req) => {
      if (req.fromTag === MERGED_FROM_TAG) await until(() => joined() === 3, 120_000, 'three tasks merging')
      return verifyTask(req)
    })
    expect(result, JSON.stringify(events.slice(-5))).toMatchObject({ status: 'complete' })
    const reruns = events.filter((e) => e.type === 'build.rerun')
    expect(reruns).toHaveLength(1)
    expect(reruns[0]!.reason).toContain('conflicted with work merged before them')
    const second = reruns[0]!.taskId!
    expect(ids.get(second)![0]).toBe('one.txt')
    const order = events.filter((e) => e.type === 'build.merged').map((e) => e.taskId)
    expect(order).toHaveLength(3)
    expect(order.at(-1)).toBe(second)
    expect(readFileSync(join(t.h.dir, 'one.txt'), 'utf8').trim()).toBe(ids.get(second)![1])
    expect(readFileSync(join(t.h.dir, 'a.txt'), 'utf8').trim()).toBe('alpha')
    noLaneLeft()
  })
})
