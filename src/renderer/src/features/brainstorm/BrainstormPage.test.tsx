import { screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { VirtuosoMockContext } from 'react-virtuoso'
import { describe, expect, it } from 'vitest'
import type { BrainstormDetail } from '../../../../shared/api/brainstorm'
import { projectDetail } from '../../test/fixtures'
import { renderWithProviders } from '../../test/render'
import { BrainstormPage } from './BrainstormPage'
import { choice, detail, docs, got } from './testData'

type Got = ReturnType<typeof got>

/** The page over a fake core whose `brainstorm.get` answers `state.got` (tests change it and emit changed). */
function renderPage(initial: Got, handlers: Record<string, (input: unknown) => unknown> = {}) {
  const state = { got: initial }
  const view = renderWithProviders(
    <VirtuosoMockContext.Provider value={{ viewportHeight: 5000, itemHeight: 40 }}>
      <BrainstormPage projectId={1} />
    </VirtuosoMockContext.Provider>,
    {
      'projects.get': () => projectDetail(),
      'brainstorm.get': () => state.got,
      'brainstorm.ideas': () => ({ ideas: [] }),
      'brainstorm.techniques': () => ({
        categories: [
          { name: 'structured', techniques: ['SCAMPER', 'Six Thinking Hats'] },
          { name: 'creative', techniques: ['What-If Scenarios'] },
        ],
      }),
      'brainstorm.answer': () => ({ accepted: true }),
      'brainstorm.start': () => ({ accepted: true }),
      ...handlers,
    },
  )
  const set = (next: Got) => {
    state.got = next
    view.emit('brainstorm.changed', { projectId: 1 })
  }
  const sent = (name: string) => view.calls.filter((c) => c.name === name).map((c) => c.input)
  return { ...view, state, set, sent }
}

const at = (patch: Partial<BrainstormDetail>) => got(detail(patch))

describe('brainstorm wizard', () => {
  it('offers a guided session and quick mode before the first session', async () => {
    const user = userEvent.setup()
    const { sent } = renderPage(got(null))
    await screen.findByRole('heading', { name: /Guided brainstorm/ })
    await user.click(screen.getByRole('button', { name: 'Start the brainstorm' }))
    await waitFor(() => expect(sent('brainstorm.start')).toEqual([{ projectId: 1 }]))

    const form = screen.getByRole('form', { name: 'Quick mode' })
    // Re-queried each time: a blocked button sits inside its tooltip's trigger, an enabled one does not.
    const submit = () => within(form).getByRole('button', { name: 'Write the documents' })
    expect(submit()).toHaveAttribute('aria-disabled', 'true')
    const fields = ['Description', 'Must-haves', 'Non-goals', 'Constraints', 'Success outcomes']
    for (const f of fields)
      await user.type(within(form).getByRole('textbox', { name: new RegExp(`^${f}`) }), `${f}!`)
    await user.click(submit())
    await waitFor(() => expect(sent('brainstorm.start')).toHaveLength(2))
    expect(sent('brainstorm.start')[1]).toEqual({
      projectId: 1,
      quick: {
        description: 'Description!',
        mustHaves: 'Must-haves!',
        nonGoals: 'Non-goals!',
        constraints: 'Constraints!',
        success: 'Success outcomes!',
      },
    })
  })

  it('answers SETUP in free text and confirms the pitch with a button', async () => {
    const user = userEvent.setup()
    const { sent, set } = renderPage(at({}))
    await user.type(await screen.findByRole('textbox', { name: 'Your answer' }), 'A recipe box')
    await user.keyboard('{Control>}{Enter}{/Control}')
    await waitFor(() => expect(sent('brainstorm.answer')).toEqual([{ projectId: 1, text: 'A recipe box' }]))

    set(
      at({
        pitch: 'A recipe box that knows the pantry.',
        pending: choice('confirm-pitch', [
          ['yes', "Yes, that's it"],
          ['no', 'Not quite'],
        ]),
      }),
    )
    const pitch = await screen.findByRole('region', { name: 'Pitch' })
    expect(pitch).toHaveTextContent('A recipe box that knows the pantry.')
    await user.click(within(pitch).getByRole('button', { name: "Yes, that's it" }))
    await waitFor(() => expect(sent('brainstorm.answer').at(-1)).toEqual({ projectId: 1, text: 'yes' }))
  })

  it('shows the four approaches as cards and the technique library to pick a category from', async () => {
    const user = userEvent.setup()
    const approaches = choice(
      'technique',
      [
        ['user-selected', 'User-selected: browse the technique library and pick'],
        ['ai-recommended', 'AI-recommended: a sequence picked for this session'],
        ['random', 'Random: shuffle techniques to break habits'],
        ['progressive', 'Progressive: divergent, then patterns, refine, action'],
      ],
      'ai-recommended',
    )
    const { sent, set } = renderPage(at({ phase: 'technique', pending: approaches }))
    for (const name of ['User-selected', 'AI-recommended', 'Random', 'Progressive'])
      await screen.findByRole('button', { name })
    const library = screen.getByRole('region', { name: 'Technique library' })
    await within(library).findByText('SCAMPER · Six Thinking Hats')
    expect(within(library).queryByRole('button', { name: /^Use / })).toBeNull()
    await user.click(screen.getByRole('button', { name: 'User-selected' }))
    await waitFor(() => expect(sent('brainstorm.answer')).toEqual([{ projectId: 1, text: 'user-selected' }]))

    set(
      at({
        phase: 'technique',
        pending: choice('category', [
          ['structured', 'structured'],
          ['creative', 'creative'],
        ]),
      }),
    )
    await user.click(await screen.findByRole('button', { name: 'Use creative' }))
    await waitFor(() => expect(sent('brainstorm.answer').at(-1)).toEqual({ projectId: 1, text: 'creative' }))
  })

  it('shows IDEATE beside the live ledger and its counters, with the energy check as buttons', async () => {
    const user = userEvent.setup()
    const ideas = Array.from({ length: 12 }, (_, i) => ({
      id: `I${String(i + 1).padStart(3, '0')}`,
      domain: i % 2 ? 'UX' : 'Core',
      title: `Idea ${i + 1}`,
      description: `about ${i + 1}`,
      novelty: i === 0 ? 'nobody does it' : null,
    }))
    const { sent } = renderPage(
      at({
        phase: 'ideate',
        ideaCount: 12,
        domainsCovered: ['Core', 'UX'],
        lens: 'SCAMPER',
        nextPivotAt: 20,
        nextInterruptAt: 20,
        messages: [{ role: 'facilitator', phase: 'ideate', text: 'What else?' }],
        pending: choice(
          'energy',
          [
            ['keep', 'Keep going'],
            ['switch', 'Switch technique'],
            ['organize', 'Organize'],
          ],
          'keep',
          'What else?\n\nWe have 12 ideas. Keep pushing on this angle, switch technique, or start organizing?',
        ),
      }),
      { 'brainstorm.ideas': () => ({ ideas }) },
    )
    const ledger = () => screen.getByRole('list', { name: 'Ideas' })
    await waitFor(() => expect(within(ledger()).getAllByRole('listitem')).toHaveLength(12))
    const list = ledger()
    const names = within(list)
      .getAllByRole('listitem')
      .map((li) => li.getAttribute('aria-label'))
    expect(names[0]).toBe('I001 Idea 1')
    expect(names.every((n, i) => n!.startsWith(`I${String(i + 1).padStart(3, '0')} `))).toBe(true)
    expect(within(list).getByText('Novelty: nobody does it')).toBeInTheDocument()
    expect(screen.getByTestId('idea-count')).toHaveTextContent('12')
    expect(screen.getByRole('list', { name: 'Domains covered: 2 of 12' })).toBeInTheDocument()
    expect(screen.getByText('SCAMPER')).toBeInTheDocument()
    expect(screen.getByRole('status')).toHaveTextContent('We have 12 ideas.')
    await user.click(screen.getByRole('button', { name: 'Switch technique' }))
    await waitFor(() => expect(sent('brainstorm.answer')).toEqual([{ projectId: 1, text: 'switch' }]))
  })

  it('moves a theme on the MoSCoW board and sends the board with the answer', async () => {
    const user = userEvent.setup()
    const { sent } = renderPage(
      at({
        phase: 'organize',
        pending: { kind: 'open', id: 'organize', text: 'Themes?' },
        themes: [
          { name: 'Import', ideas: ['I001', 'I002'], priority: 'must', risk: 'scraping' },
          { name: 'Sharing', ideas: ['I003'], priority: null, risk: null },
        ],
      }),
    )
    const board = await screen.findByRole('region', { name: 'MoSCoW board' })
    expect(
      within(within(board).getByRole('group', { name: 'Must-have' })).getByRole('article'),
    ).toHaveAccessibleName('Import')
    expect(screen.getByRole('button', { name: 'The board is right' })).toBeInTheDocument()
    await user.selectOptions(
      within(board).getByRole('combobox', { name: 'Priority of Sharing' }),
      "Won't-have",
    )
    within(within(board).getByRole('group', { name: "Won't-have" })).getByRole('article', { name: 'Sharing' })
    await user.click(screen.getByRole('button', { name: 'Send my board' }))
    await waitFor(() => expect(sent('brainstorm.answer')).toHaveLength(1))
    expect(sent('brainstorm.answer')[0]).toEqual({
      projectId: 1,
      text: "Here is my MoSCoW board:\nMust-have: Import (I001, I002)\nWon't-have: Sharing (I003)",
      themes: [
        { name: 'Import', ideas: ['I001', 'I002'], priority: 'must', risk: 'scraping' },
        { name: 'Sharing', ideas: ['I003'], priority: 'wont', risk: null },
      ],
    })
  })

  it('goes on from CRYSTALLIZE only when all six cards are approved or edited', async () => {
    const user = userEvent.setup()
    const statements = {
      vision: 'A recipe box.',
      successTruths: ['3 recipes in 5 minutes'],
      nonGoals: ['No feed'],
      constraints: ['Web only'],
      risks: ['Scraping'],
      openQuestions: ['Which sites?'],
    }
    const { sent } = renderPage(
      at({
        phase: 'crystallize',
        pending: { kind: 'open', id: 'crystallize', text: 'Approve?' },
        statements,
      }),
    )
    const next = () => screen.getByRole('button', { name: 'Continue to the documents' })
    await screen.findByRole('button', { name: 'Continue to the documents' })
    expect(next()).toHaveAttribute('aria-disabled', 'true')
    await user.click(screen.getByRole('button', { name: 'Edit Non-goals' }))
    const box = screen.getByRole('textbox', { name: 'Edit Non-goals' })
    await user.clear(box)
    await user.type(box, '- No feed{Enter}- No Windows')
    await user.click(
      within(screen.getByRole('article', { name: 'Non-goals' })).getByRole('button', { name: 'Save' }),
    )
    for (const t of ['Vision', 'Success truths', 'Constraints', 'Key risks'])
      await user.click(screen.getByRole('button', { name: `Approve ${t}` }))
    expect(next()).toHaveAttribute('aria-disabled', 'true')
    await user.click(screen.getByRole('button', { name: 'Approve Open questions' }))
    expect(next()).not.toHaveAttribute('aria-disabled')
    await user.click(next())
    await waitFor(() => expect(sent('brainstorm.answer')).toHaveLength(1))
    expect(sent('brainstorm.answer')[0]).toMatchObject({
      statements: { ...statements, nonGoals: ['No feed', 'No Windows'] },
    })
  })

  it('shows both documents rendered and raw with their line counts against the limits', async () => {
    const user = userEvent.setup()
    renderPage(
      at({
        phase: 'output',
        drafts: { ...docs, visionLines: 81 },
        rendered: { vision: { 'vision_yaml<=300t': { problem: { why: 'x' } } }, roadmap: { version: '0.1' } },
        pending: choice('drafts', [
          ['review', 'Looks right: run the review'],
          ['change', 'Change something'],
        ]),
      }),
    )
    const vision = await screen.findByRole('region', { name: 'VISION.md' })
    expect(within(vision).getByTestId('VISION.md-lines')).toHaveTextContent('81 / 80 lines')
    expect(within(vision).getByTestId('VISION.md-lines')).toHaveClass('tone-bad')
    expect(screen.getByTestId('ROADMAP.md-lines')).toHaveTextContent('5 / 120 lines')
    expect(within(vision).getByText('why')).toBeInTheDocument()
    await user.click(within(vision).getByRole('tab', { name: 'Raw' }))
    expect(within(vision).getByText(/vision_yaml<=300t:/)).toBeInTheDocument()
    expect(screen.getByRole('button', { name: 'Looks right' })).toBeInTheDocument()
  })

  it('asks what should change in the documents in free text', async () => {
    const user = userEvent.setup()
    const { sent } = renderPage(
      at({
        phase: 'output',
        drafts: docs,
        pending: { kind: 'open', id: 'change', text: 'What should change?' },
      }),
    )
    await user.type(await screen.findByRole('textbox', { name: 'What should change' }), 'Add a mobile track')
    await user.click(screen.getByRole('button', { name: 'Revise' }))
    await waitFor(() =>
      expect(sent('brainstorm.answer')).toEqual([{ projectId: 1, text: 'Add a mobile track' }]),
    )
    expect(screen.getByRole('region', { name: 'ROADMAP.md' })).toBeInTheDocument()
  })

  it('lets the user fix a twice-refused draft by hand once it validates', async () => {
    const user = userEvent.setup()
    let problems = ['VISION.md has 90 lines; the limit is 80.']
    const { sent } = renderPage(
      at({
        phase: 'output',
        problems,
        handDraft: { vision: 'long', roadmap: 'ok' },
        pending: choice(
          'failed',
          [
            ['retry', 'Try again'],
            ['edited', 'Use my edited draft'],
            ['stop', 'Stop here'],
          ],
          'stop',
        ),
      }),
      {
        'brainstorm.check': () => ({ problems, visionLines: 90, roadmapLines: 3 }),
        'brainstorm.useDraft': () => ({ accepted: true }),
      },
    )
    expect(await screen.findByRole('list', { name: 'Problems' })).toHaveTextContent('90 lines')
    expect(screen.getByRole('button', { name: 'Try again' })).toBeInTheDocument()
    expect(screen.queryByRole('button', { name: 'Stop here' })).toBeNull()
    const use = () => screen.getByRole('button', { name: 'Use my edited draft' })
    await screen.findByRole('list', { name: 'Draft problems' })
    expect(use()).toHaveAttribute('aria-disabled', 'true')
    problems = []
    await user.clear(screen.getByRole('textbox', { name: /^VISION\.md/ }))
    await user.type(screen.getByRole('textbox', { name: /^VISION\.md/ }), 'short')
    await screen.findByText('Both documents pass.')
    await user.click(use())
    await waitFor(() =>
      expect(sent('brainstorm.useDraft')).toEqual([{ projectId: 1, vision: 'short', roadmap: 'ok' }]),
    )
  })

  it('takes the findings in order with Apply and Dismiss, then Update or New draft, then Write files', async () => {
    const user = userEvent.setup()
    const findings = [
      {
        severity: 'HIGH' as const,
        what: 'No metric',
        why: 'untestable',
        fix: 'add one',
        decision: 'apply' as const,
      },
      { severity: 'MED' as const, what: 'Vague scope', why: 'creep', fix: 'narrow', decision: null },
      { severity: 'LOW' as const, what: 'Typo', why: 'polish', fix: 'fix it', decision: null },
    ]
    const finding = choice('finding', [
      ['apply', 'Apply'],
      ['dismiss', 'Dismiss'],
    ])
    const { sent, set } = renderPage(at({ phase: 'review', drafts: docs, findings, pending: finding }))
    const list = await screen.findByRole('list', { name: 'Findings' })
    const items = within(list).getAllByRole('listitem')
    expect(items.map((li) => li.getAttribute('aria-label'))).toEqual([
      'HIGH: No metric',
      'MED: Vague scope',
      'LOW: Typo',
    ])
    expect(within(items[0]!).queryByRole('button', { name: 'Apply' })).toBeNull()
    expect(within(items[2]!).getByRole('button', { name: 'Apply' })).toHaveAttribute('aria-disabled', 'true')
    await user.click(within(items[1]!).getByRole('button', { name: 'Dismiss' }))
    await waitFor(() => expect(sent('brainstorm.answer')).toEqual([{ projectId: 1, text: 'dismiss' }]))

    const decided = findings.map((f) => ({ ...f, decision: f.decision ?? ('dismiss' as const) }))
    set(
      at({
        phase: 'review',
        drafts: docs,
        findings: decided,
        existing: { vision: true, roadmap: false },
        pending: choice(
          'existing-vision',
          [
            ['update', 'Update: replace VISION.md'],
            ['draft', 'New draft: write VISION.draft.md'],
          ],
          'draft',
          'VISION.md already exists.',
        ),
      }),
    )
    await user.click(await screen.findByRole('button', { name: 'Update' }))
    expect(screen.getByRole('button', { name: 'New draft' })).toBeInTheDocument()
    await waitFor(() => expect(sent('brainstorm.answer').at(-1)).toEqual({ projectId: 1, text: 'update' }))

    set(
      at({
        phase: 'review',
        drafts: docs,
        findings: decided,
        pending: choice('write', [
          ['write', 'Write files'],
          ['later', 'Not yet'],
        ]),
      }),
    )
    await user.click(await screen.findByRole('button', { name: 'Write files' }))
    expect(screen.queryByRole('button', { name: 'Not yet' })).toBeNull()
    await waitFor(() => expect(sent('brainstorm.answer').at(-1)).toEqual({ projectId: 1, text: 'write' }))
  })

  it('offers the work queue for a written ROADMAP.md, and says why not for a draft', async () => {
    const user = userEvent.setup()
    const queue = choice('queue', [
      ['later', 'Not now'],
      ['create', 'Create the work queue'],
    ])
    const { sent, set } = renderPage(
      at({ phase: 'done', written: ['VISION.md', 'ROADMAP.md'], drafts: docs, pending: queue }),
    )
    await user.click(await screen.findByRole('button', { name: 'Create the work queue from this roadmap' }))
    await waitFor(() => expect(sent('brainstorm.answer')).toEqual([{ projectId: 1, text: 'create' }]))
    set(
      got(
        detail({
          phase: 'done',
          written: ['VISION.draft.md', 'ROADMAP.draft.md'],
          drafts: docs,
          pending: null,
        }),
      ),
    )
    await waitFor(() =>
      expect(screen.getByRole('button', { name: 'Create the work queue from this roadmap' })).toHaveAttribute(
        'aria-disabled',
        'true',
      ),
    )
    await user.click(screen.getByRole('button', { name: 'Start a new brainstorm' }))
    await screen.findByRole('heading', { name: /Guided brainstorm/ })
  })

  it('shows progress with Stop while a step runs, blocks answers, and offers Continue for an unfinished step', async () => {
    const user = userEvent.setup()
    const { sent, set } = renderPage(got(detail({ pending: null }), { running: true }), {
      'brainstorm.stop': () => ({ stopped: true }),
    })
    await screen.findByText('The facilitator is working…')
    await user.click(screen.getByRole('button', { name: 'Stop' }))
    await waitFor(() => expect(sent('brainstorm.stop')).toEqual([{ projectId: 1 }]))

    set(
      got(detail({ pending: null, due: true }), { error: 'Stopped. The session is saved at its last step.' }),
    )
    await screen.findByText('Stopped. The session is saved at its last step.')
    expect(screen.queryByText('The facilitator is working…')).toBeNull()
    await user.click(screen.getByRole('button', { name: 'Continue' }))
    await waitFor(() => expect(sent('brainstorm.start')).toEqual([{ projectId: 1 }]))
  })
})
