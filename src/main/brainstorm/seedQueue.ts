import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { AppError } from '../../shared/errors'
import type { RoadmapYaml } from '../../shared/brainstorm'
import { addTask, setSpec } from '../queue'
import { writeFileAtomic, type Logger } from '../workspace'
import { roadmapData, validateRoadmap } from './documents'

type Track = RoadmapYaml['tracks'][number]

// A criterion a command can decide (a command in backticks, a test runner, an exit code) is DET:, the rest LLM:.
const DETERMINISTIC =
  /`[^`]+`|\b(npm|npx|pnpm|yarn|make|cargo|go test|pytest|node|ralph)\b|\bexit(s)? (code )?0\b|\bexit code\b/i

export function tagCriterion(text: string): string {
  const t = text.trim()
  if (/^(DET|LLM):/i.test(t)) return t.replace(/^(det|llm):/i, (m) => m.toUpperCase())
  return `${DETERMINISTIC.test(t) ? 'DET' : 'LLM'}: ${t}`
}

const slug = (s: string) =>
  s
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')
    .slice(0, 40) || 'track'

export const trackSpecPath = (track: Track) =>
  `specs/roadmap-track-${String(track.id)}-${slug(track.name)}.md`

function trackSpec(track: Track, roadmap: RoadmapYaml, byId: Map<string, Track>): string {
  const list = (items: readonly string[]) => items.map((i) => `- ${i}`).join('\n')
  const deps = (track.dependencies ?? []).map((d) => {
    const dep = byId.get(String(d))
    return dep ? `Track ${String(dep.id)}: ${dep.name} (${trackSpecPath(dep)})` : `Track ${String(d)}`
  })
  return [
    `# Track ${String(track.id)}: ${track.name}`,
    '',
    `From ROADMAP.md (${roadmap.project}, version ${String(roadmap.version)}): ${roadmap.goal}`,
    'See VISION.md for the problem, the users and the non-goals.',
    '',
    '## Goal',
    '',
    track.goal,
    '',
    '## Deliverables',
    '',
    list(track.deliverables),
    '',
    '## Done when',
    '',
    list(track.done_when),
    ...(deps.length ? ['', '## Depends on', '', list(deps)] : []),
    ...(track.risks?.length ? ['', '## Risks', '', list(track.risks)] : []),
    '',
  ].join('\n')
}

export interface SeededTrack {
  track: string
  spec: string
  /** Task ids in build order: one per deliverable, then the track's "done when" check. */
  tasks: string[]
}

/**
 * "Create the work queue from this roadmap": one spec file per track (specs/roadmap-track-N-name.md), one task
 * per deliverable, and a closing task per track whose acceptance criteria are its done_when items (tagged DET:
 * or LLM:, DESIGN.md §16). A track's first tasks depend on the closing task of every track it depends on. The
 * first track's spec becomes the current spec. Refuses an invalid roadmap, or one already seeded (a spec exists).
 */
export async function seedQueueFromRoadmap(input: {
  projectDir: string
  roadmap: string
  logger: Logger
}): Promise<SeededTrack[]> {
  const problems = validateRoadmap(input.roadmap)
  if (problems.length) throw new AppError('invalid-input', `ROADMAP.md is not valid: ${problems.join(' ')}`)
  const roadmap = roadmapData(input.roadmap)
  const options = { logger: input.logger }
  const byId = new Map(roadmap.tracks.map((t) => [String(t.id), t]))
  const existing = roadmap.tracks.map(trackSpecPath).filter((p) => existsSync(join(input.projectDir, p)))
  if (existing.length) {
    throw new AppError(
      'invalid-input',
      `The roadmap was already turned into specs (${existing.join(', ')}); move them aside to seed the queue again.`,
    )
  }
  for (const track of roadmap.tracks)
    await writeFileAtomic(join(input.projectDir, trackSpecPath(track)), trackSpec(track, roadmap, byId))

  const closing = new Map<string, string>()
  const seeded: SeededTrack[] = []
  for (const track of roadmap.tracks) {
    const spec = trackSpecPath(track)
    const after = (track.dependencies ?? [])
      .map((d) => closing.get(String(d)))
      .filter((id): id is string => id !== undefined)
    const tasks: string[] = []
    for (const deliverable of track.deliverables) {
      const result = await addTask({
        projectDir: input.projectDir,
        name: deliverable,
        notes: `Track ${String(track.id)} (${track.name}): ${track.goal}`,
        accept: [`LLM: ${deliverable} exists and works as ${spec} describes`],
        deps: after.length ? after : undefined,
        spec,
        options,
      })
      tasks.push(result.ids[0]!)
    }
    const done = await addTask({
      projectDir: input.projectDir,
      name: `Track ${String(track.id)} done: ${track.name}`,
      notes: `Check the track's done_when conditions (${spec}).`,
      accept: track.done_when.map(tagCriterion),
      deps: tasks,
      spec,
      options,
    })
    tasks.push(done.ids[0]!)
    closing.set(String(track.id), done.ids[0]!)
    seeded.push({ track: track.name, spec, tasks })
  }
  await setSpec({ projectDir: input.projectDir, spec: seeded[0]!.spec, options })
  return seeded
}
