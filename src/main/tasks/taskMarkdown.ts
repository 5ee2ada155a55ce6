import type { StructuredTask } from '../../shared/task'

export interface TaskMarkdownMeta {
  taskNumber: number
  /** The snapshot the task starts from, e.g. "task-2-post"; null for the first task. */
  previousTag: string | null
  rawMessage: string
  /** True when the parser fell back to the template: renders seed 000 §5 option B. */
  fallback: boolean
}

/** "> " before every line, so a message of any shape stays one quoted block. */
export function quote(text: string): string {
  const lines = text.replace(/\r\n?/g, '\n').replace(/\n+$/, '').split('\n')
  return lines.map((line) => (line ? `> ${line}` : '>')).join('\n')
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim()
}

function requirementLine(r: StructuredTask['requirements'][number]): string {
  const count =
    r.count !== null && !oneLine(r.description).includes(String(r.count)) ? ` (count: ${r.count})` : ''
  return `- [${r.marker}] ${oneLine(r.description)}${count}`
}

function header(title: string | null, type: string, meta: TaskMarkdownMeta): string[] {
  return [
    title === null ? '# Task' : `# Task: ${oneLine(title)}`,
    `Type: ${type}`,
    `Previous: ${meta.previousTag ?? 'none'}`,
    `Counter: ${meta.taskNumber}`,
  ]
}

/**
 * `.ralph/task.md` in the structured format of seed 000 §5 (`# Task: …`, `Type:`, `Previous:`, `Counter:`,
 * `## Requirements` with markers, `## Scope`, `## Original Message` quoted). With `meta.fallback` it renders the
 * template of option B instead (Type: pending, the raw message, and sections for Ralph to fill in).
 */
export function renderTaskMarkdown(task: StructuredTask, meta: TaskMarkdownMeta): string {
  if (meta.fallback) {
    return [
      ...header(null, 'pending', meta),
      '',
      '## Raw Message',
      quote(meta.rawMessage),
      '',
      '## Requirements (Ralph: fill these in during planning)',
      '- [ ] ...',
      '',
      "## Scope (Ralph: declare what's preserved)",
      '- PRESERVE: ...',
      '- AFFECTED FILES: ...',
      '',
    ].join('\n')
  }
  const lines = [...header(task.title, task.type, meta), '', '## Requirements']
  if (task.requirements.length) lines.push(...task.requirements.map(requirementLine))
  else lines.push('- (none yet)')
  lines.push('', '## Scope')
  for (const item of task.scope.preserve) lines.push(`- PRESERVE: ${oneLine(item)}`)
  if (task.scope.affectedFiles.length) lines.push(`- AFFECTED FILES: ${task.scope.affectedFiles.join(', ')}`)
  if (!task.scope.preserve.length && !task.scope.affectedFiles.length) lines.push('- (nothing declared)')
  if (task.type === 'needs-clarification' && task.clarification) {
    lines.push('', '## Clarification Needed', oneLine(task.clarification))
  }
  lines.push('', '## Original Message', quote(meta.rawMessage), '')
  return lines.join('\n')
}
