import { describe, expect, it } from 'vitest'
import { renderTaskMarkdown, quote } from './taskMarkdown'
import { buildParserPrompt, fillTemplate, formatFileList, templateTask } from './taskParser'

describe('renderTaskMarkdown', () => {
  it('renders the seed format exactly', () => {
    const md = renderTaskMarkdown(
      {
        type: 'mutation',
        title: 'Refine VIBRANT ENERGY landing page',
        requirements: [
          { marker: 'MODIFY', description: 'Refine ad copy in hero and CTA sections', count: null },
          { marker: 'ADD', description: 'New nighttime drink flavors (add to existing 8)', count: 2 },
        ],
        scope: {
          preserve: ['All 8 existing energy drink flavors unchanged', 'Navigation and routing'],
          affectedFiles: ['HeroSection.tsx', 'FlavorGrid.tsx'],
        },
        clarification: null,
      },
      {
        taskNumber: 3,
        previousTag: 'task-2-post',
        rawMessage: 'refine ad copy!\n\nadd 2 more drinks for nighttime.\n',
        fallback: false,
      },
    )
    expect(md).toBe(
      [
        '# Task: Refine VIBRANT ENERGY landing page',
        'Type: mutation',
        'Previous: task-2-post',
        'Counter: 3',
        '',
        '## Requirements',
        '- [MODIFY] Refine ad copy in hero and CTA sections',
        '- [ADD] New nighttime drink flavors (add to existing 8) (count: 2)',
        '',
        '## Scope',
        '- PRESERVE: All 8 existing energy drink flavors unchanged',
        '- PRESERVE: Navigation and routing',
        '- AFFECTED FILES: HeroSection.tsx, FlavorGrid.tsx',
        '',
        '## Original Message',
        '> refine ad copy!',
        '>',
        '> add 2 more drinks for nighttime.',
        '',
      ].join('\n'),
    )
  })

  it('shows the question of a needs-clarification task and a first task with nothing declared', () => {
    const md = renderTaskMarkdown(
      {
        type: 'needs-clarification',
        title: 'More drinks',
        requirements: [],
        scope: { preserve: [], affectedFiles: [] },
        clarification: 'New drinks or converted ones?',
      },
      { taskNumber: 1, previousTag: null, rawMessage: 'add 2 drinks', fallback: false },
    )
    expect(md).toContain('Type: needs-clarification\nPrevious: none\nCounter: 1')
    expect(md).toContain('## Requirements\n- (none yet)')
    expect(md).toContain('## Scope\n- (nothing declared)')
    expect(md).toContain('## Clarification Needed\nNew drinks or converted ones?')
  })

  it('does not repeat a count the description already states', () => {
    const md = renderTaskMarkdown(
      {
        type: 'fresh',
        title: 't',
        requirements: [{ marker: 'ADD', description: '3 pricing cards', count: 3 }],
        scope: { preserve: [], affectedFiles: [] },
        clarification: null,
      },
      { taskNumber: 1, previousTag: null, rawMessage: 'x', fallback: false },
    )
    expect(md).toContain('- [ADD] 3 pricing cards\n')
  })

  it('quotes CRLF text line by line', () => {
    expect(quote('a\r\nb')).toBe('> a\n> b')
  })
})

describe('parser helpers', () => {
  it('fills placeholders in one pass', () => {
    expect(fillTemplate('{{a}} and {{b}} and {{c}}', { a: '{{b}}', b: 'B' })).toBe('{{b}} and B and {{c}}')
  })

  it('caps the file list with a note', () => {
    expect(formatFileList([])).toBe('(the project is empty)')
    expect(formatFileList(['a', 'b', 'c'], 2)).toBe('- a\n- b\n… and 1 more')
  })

  it('builds the prompt from the template file with every placeholder filled', () => {
    const { system, prompt } = buildParserPrompt('fix {{fileList}} please', {
      planExists: false,
      lastSummary: '',
      fileList: ['a.ts'],
      taskNumber: 4,
      previousTag: 'task-3-post',
    })
    expect(system).toMatch(/single JSON object/)
    expect(system).toMatch(/needs-clarification/)
    expect(prompt).not.toMatch(/\{\{(?!fileList\}\} please)/)
    expect(prompt).toContain('fix {{fileList}} please')
    expect(prompt).toContain('Existing plan (.ralph/plan.tsx): does not exist')
    expect(prompt).toContain('Task number: 4')
  })

  it('template task: fresh without a plan, mutation with one, titled from the first line', () => {
    expect(templateTask('\n  build   a blog\nwith tags')).toMatchObject({
      type: 'fresh',
      title: 'build a blog',
    })
    expect(templateTask('x'.repeat(200), { planExists: true })).toMatchObject({ type: 'mutation' })
    expect(templateTask('x'.repeat(200)).title).toHaveLength(78)
    expect(templateTask('   ').title).toBe('Untitled task')
  })
})
