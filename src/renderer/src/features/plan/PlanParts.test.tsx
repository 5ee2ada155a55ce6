import { render, screen, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { describe, expect, it, vi } from 'vitest'
import type { PlanFinding, SectionVerdict, StructuralDiff } from '../../../../shared/api/plan'
import { Implementation } from './Implementation'
import { Outline } from './Outline'
import { Problems } from './Problems'
import { SectionChanges } from './SectionChanges'

// The plan editor's parts that are not Monaco (Monaco itself does not run in happy-dom: the editor, its
// decorations and the text diff are proven in Chromium by tests/e2e/planEditor.test.ts).

const finding = (patch: Partial<PlanFinding> = {}): PlanFinding => ({
  rule: 'known-components',
  severity: 'failure',
  message: 'Unknown component <Carousel>.',
  line: 24,
  column: 11,
  ...patch,
})

describe('Problems', () => {
  it('is the list "Problems", each item showing its rule id, and a click jumps to its place', async () => {
    const onJump = vi.fn()
    render(
      <Problems
        findings={[finding(), finding({ rule: 'missing-nav', severity: 'warning', line: 3, column: 1 })]}
        pending={false}
        onJump={onJump}
      />,
    )
    const list = screen.getByRole('list', { name: 'Problems' })
    const items = within(list).getAllByRole('listitem')
    expect(items.map((i) => i.textContent)).toEqual([
      expect.stringContaining('known-components'),
      expect.stringContaining('missing-nav'),
    ])
    expect(screen.getByText('1 failure, 1 warning')).toBeInTheDocument()
    await userEvent.click(within(items[0]!).getByRole('button'))
    expect(onJump).toHaveBeenCalledWith(24, 11)
  })

  it('says when the plan passes, and caps a long list', () => {
    const { rerender } = render(<Problems findings={[]} pending={false} onJump={() => {}} />)
    expect(screen.getByRole('list', { name: 'Problems' })).toHaveTextContent('No problems')
    rerender(
      <Problems
        findings={Array.from({ length: 130 }, (_, i) => finding({ line: i + 1 }))}
        pending
        onJump={() => {}}
      />,
    )
    expect(screen.getAllByRole('button')).toHaveLength(100)
    expect(screen.getByRole('list', { name: 'Problems' })).toHaveTextContent('… and 30 more')
    expect(screen.getByText(/checking…/)).toBeInTheDocument()
  })
})

describe('Outline', () => {
  it('lists screens → sections with their markers and files; a click jumps to the element', async () => {
    const onJump = vi.fn()
    render(
      <Outline
        screens={[
          {
            name: 'landing',
            line: 8,
            markers: [],
            sections: [
              {
                gumdrop: 'features',
                line: 20,
                files: ['src/data/flavors.ts'],
                markers: ['ADD', 'PRESERVED'],
              },
            ],
          },
          { name: 'store', line: 32, markers: ['NO_CHANGES'], sections: [] },
        ]}
        onJump={onJump}
      />,
    )
    const outline = screen.getByRole('navigation', { name: 'Outline' })
    const features = within(outline).getByRole('button', { name: /^features/ })
    expect(features).toHaveTextContent('ADD')
    expect(features).toHaveTextContent('PRESERVED')
    expect(features).toHaveTextContent('flavors.ts')
    expect(within(outline).getByRole('button', { name: /^store/ })).toHaveTextContent('NO CHANGES')
    await userEvent.click(features)
    expect(onJump).toHaveBeenCalledWith(20)
  })
})

const node = (patch: Partial<StructuralDiff['nodes'][number]>): StructuralDiff['nodes'][number] => ({
  kind: 'section',
  name: null,
  previousName: null,
  label: '',
  status: 'unchanged',
  before: { line: 1, endLine: 2 },
  after: { line: 1, endLine: 2 },
  props: [],
  markersAdded: [],
  markersRemoved: [],
  children: [],
  ...patch,
})
const add = { kind: 'ADD' as const, task: 2, description: '2 drinks', count: 2, noun: 'drinks', line: 21 }

describe('SectionChanges', () => {
  const diff: StructuralDiff = {
    nodes: [
      node({ kind: 'app', name: 'VIBRANT ENERGY', label: '<App>' }),
      node({
        kind: 'screen',
        name: 'landing',
        label: 'screen "landing"',
        status: 'changed',
        children: [
          node({ name: 'hero', label: 'landing › hero' }),
          node({
            name: 'features',
            label: 'landing › features',
            status: 'changed',
            props: [{ name: 'cols', before: '4', after: '5' }],
            markersAdded: [add],
            before: { line: 18, endLine: 21 },
            after: { line: 20, endLine: 24 },
          }),
        ],
      }),
      node({
        kind: 'screen',
        name: 'shop',
        previousName: 'store',
        label: 'screen "shop"',
        status: 'renamed',
      }),
      node({ kind: 'screen', name: 'old', label: 'screen "old"', status: 'removed', after: null }),
    ],
    counts: { added: 0, removed: 1, renamed: 1, moved: 0, changed: 2, markersAdded: 1, markersRemoved: 0 },
    identical: false,
  }

  it('is the list "Section changes": changed elements with status and marker badges, unchanged sections left out', () => {
    render(<SectionChanges diff={diff} onReveal={() => {}} />)
    const list = screen.getByRole('list', { name: 'Section changes' })
    expect(
      within(list)
        .getAllByRole('listitem', { name: /./ })
        .map((li) => li.getAttribute('aria-label')),
    ).toEqual([
      'screen landing, changed',
      'landing › features, changed, ADD marker added',
      'screen shop, renamed',
      'screen old, removed',
    ])
    const features = within(list).getByRole('listitem', { name: /^landing › features/ })
    expect(features).toHaveTextContent('+ ADD')
    expect(features).toHaveTextContent('cols: 4 → 5')
    expect(within(list).getByRole('listitem', { name: 'screen shop, renamed' })).toHaveTextContent(
      '(was store)',
    )
  })

  it('reveals the lines of the newer version, or of the older one for what was removed', async () => {
    const onReveal = vi.fn()
    render(<SectionChanges diff={diff} onReveal={onReveal} />)
    const list = screen.getByRole('list', { name: 'Section changes' })
    await userEvent.click(
      within(within(list).getByRole('listitem', { name: /^landing › features/ })).getAllByRole('button')[0]!,
    )
    expect(onReveal).toHaveBeenLastCalledWith(20, 'after')
    await userEvent.click(
      within(within(list).getByRole('listitem', { name: 'screen old, removed' })).getByRole('button'),
    )
    expect(onReveal).toHaveBeenLastCalledWith(1, 'before')
  })
})

describe('Implementation', () => {
  it('shows each marked section’s files and the gates’ verdicts with their numbers', () => {
    const sections: SectionVerdict[] = [
      {
        section: 'landing › features (line 20)',
        line: 20,
        markers: [{ kind: 'ADD', task: 2, description: '2 drinks', count: 2, noun: 'drinks' }],
        files: [{ path: 'src/data/flavors.ts', changed: true, existsBefore: true, existsAfter: true }],
        verdicts: [
          {
            gate: 'scope-add',
            severity: 'pass',
            message: 'ADD marker specified 2 new drinks: 8 → 10.',
            file: null,
            section: 'landing › features (line 20)',
          },
        ],
      },
    ]
    render(<Implementation task={2} sections={sections} onReveal={() => {}} />)
    const item = within(screen.getByRole('list', { name: 'Plan against implementation' })).getByRole(
      'listitem',
      {
        name: 'landing › features (line 20)',
      },
    )
    expect(within(item).getByRole('list', { name: 'Files' })).toHaveTextContent('src/data/flavors.ts changed')
    expect(within(item).getByRole('list', { name: 'Verdicts' })).toHaveTextContent(
      'pass scope-add ADD marker specified 2 new drinks: 8 → 10.',
    )
  })

  it('says when no section carries markers for the task', () => {
    render(<Implementation task={3} sections={[]} onReveal={() => {}} />)
    expect(
      screen.getByText('No section carries markers for task 3, so no scope gate applies.'),
    ).toBeInTheDocument()
  })
})
