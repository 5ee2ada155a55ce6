import { describe, expect, it } from 'vitest'
import { fencedYaml, lineCount, roadmapData, validateDocuments } from './documents'

const vision = `# VISION

\`\`\`yaml
vision_yaml<=300t:
  problem: { why: "w", pain: ["p"] }
  solution: { what: "x", boundaries: "b" }
  users: { primary: "u", environments: [] }
  key_differentiators: ["d"]
  mvp_scope: { in: ["i"], out: [] }
  success_metrics: ["m"]
  non_goals: ["n"]
  assumptions: []
  open_questions: []
\`\`\``

const roadmap = `# ROADMAP

\`\`\`yaml
version: 0.1
project: "P"
goal: "G"
tracks:
  - { id: 1, name: "T", goal: "g", deliverables: ["d"], done_when: ["w"] }
milestones: []
risks: []
definition_of_done: ["done"]
\`\`\``

describe('validateDocuments', () => {
  it('accepts the seed schemas (flow style, a numeric version, optional track keys left out)', () => {
    expect(validateDocuments({ vision, roadmap })).toEqual([])
    expect(roadmapData(roadmap).tracks[0]!.name).toBe('T')
  })

  it('names each problem: extra top-level key, missing key, no fence, broken YAML, line limit', () => {
    expect(
      validateDocuments({ vision: `${vision}\n`.replace('```yaml\n', '```yaml\nextra: 1\n'), roadmap }),
    ).toEqual(['VISION.md: (top level): Unrecognized key: "extra"'])
    expect(validateDocuments({ vision, roadmap: roadmap.replace('goal: "G"\n', '') })).toEqual([
      'ROADMAP.md: goal: Invalid input: expected string, received undefined',
    ])
    expect(validateDocuments({ vision: 'just prose', roadmap })).toEqual([
      'VISION.md has no ```yaml code fence holding its YAML.',
    ])
    const broken = validateDocuments({ vision, roadmap: '```yaml\ntracks: [\n```' })
    expect(broken[0]).toMatch(/^ROADMAP\.md: the YAML does not parse at line \d+/)
    const long = `${vision}\n${Array.from({ length: 80 }, () => 'x').join('\n')}` // 14 + 80 lines
    expect(validateDocuments({ vision: long, roadmap })).toEqual(['VISION.md has 94 lines; the limit is 80.'])
  })

  it('counts lines without the trailing newline and finds the fence', () => {
    expect(lineCount('a\nb\n')).toBe(2)
    expect(fencedYaml('x\n```yml\na: 1\n```\n')).toBe('a: 1')
  })
})
