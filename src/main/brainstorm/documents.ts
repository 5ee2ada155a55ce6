import { parse as parseYaml, YAMLParseError } from 'yaml'
import type { z } from 'zod'
import {
  ROADMAP_MAX_LINES,
  roadmapYamlSchema,
  VISION_MAX_LINES,
  visionYamlSchema,
  type BrainstormDocuments,
  type RoadmapYaml,
} from '../../shared/brainstorm'

const FENCE = /```ya?ml[^\n]*\n([\s\S]*?)\n?```/

export function lineCount(text: string): number {
  return text.replace(/\n+$/, '').split('\n').length
}

/** The YAML inside the document's ```yaml fence, or null when there is none. */
export function fencedYaml(text: string): string | null {
  return FENCE.exec(text)?.[1] ?? null
}

function checkOne(name: string, text: string, maxLines: number, schema: z.ZodType): string[] {
  const problems: string[] = []
  const lines = lineCount(text)
  if (lines > maxLines) problems.push(`${name} has ${lines} lines; the limit is ${maxLines}.`)
  const yaml = fencedYaml(text)
  if (yaml === null) {
    problems.push(`${name} has no \`\`\`yaml code fence holding its YAML.`)
    return problems
  }
  let value: unknown
  try {
    value = parseYaml(yaml)
  } catch (err) {
    const where = err instanceof YAMLParseError && err.linePos ? ` at line ${err.linePos[0].line}` : ''
    problems.push(`${name}: the YAML does not parse${where}: ${(err as Error).message.split('\n')[0]}`)
    return problems
  }
  const parsed = schema.safeParse(value)
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const path = issue.path.map(String).join('.') || '(top level)'
      problems.push(`${name}: ${path}: ${issue.message}`)
    }
  }
  return problems
}

/** Every problem of the two documents (schema, YAML syntax, line limits), in words the model can act on. */
export function validateDocuments(docs: BrainstormDocuments): string[] {
  return [
    ...checkOne('VISION.md', docs.vision, VISION_MAX_LINES, visionYamlSchema),
    ...checkOne('ROADMAP.md', docs.roadmap, ROADMAP_MAX_LINES, roadmapYamlSchema),
  ]
}

export function validateRoadmap(roadmap: string): string[] {
  return checkOne('ROADMAP.md', roadmap, ROADMAP_MAX_LINES, roadmapYamlSchema)
}

/** The roadmap's YAML, for seeding the work queue (call only on a validated document). */
export function roadmapData(roadmap: string): RoadmapYaml {
  return roadmapYamlSchema.parse(parseYaml(fencedYaml(roadmap) ?? ''))
}
