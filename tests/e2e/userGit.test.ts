import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { FakeLlmServer } from '../fixtures/fakeLlmServer'
import { shootThemes } from '../helpers/browser'
import { startAppSession, type AppSession } from '../helpers/appSession'
import { makeTempDir } from '../helpers/tempDir'
import type { WebHost } from '../helpers/webHost'
import { commitFiles, git, head, initRepo, read, userState, write } from '../integration/userGit/helpers'

// "Your git" in Chromium against the real `npm run web`: a project that is also the user's own repository, with
// work of the user's in progress; a task runs, and "Commit to my git" adds exactly one commit of exactly the
// task's files while everything else of the user's repository stays as it was.
describe('your git in Chromium', { timeout: 120_000 }, () => {
  let session: AppSession
  let llm: FakeLlmServer
  let host: WebHost
  let page: Page
  let dir: string
  let projectId: number
  let headBefore: string
  let before: ReturnType<typeof userState>

  const TASK_FILES = ['menu.html', 'prices.html']
  const shoot = (name: string) => shootThemes(page, `userGit-${name}`)
  const header = () => page.getByRole('group', { name: 'Your git' })
  const card = () =>
    page.getByRole('log', { name: 'Conversation' }).getByRole('article', { name: 'Task 1: Add a price list' })
  // The user came back to the window (from their terminal): the header reads the repository again.
  const refocus = () => page.evaluate('window.dispatchEvent(new Event("focus"))')
  /**
   * The header's words, and whether they are what `git status` lists now: the user's changes counted, Ralph's own
   * .ralph/ apart (never counted, never hidden: "+ .ralph/" while git lists it).
   */
  const headerAndGit = async () => {
    await refocus()
    const text = (await header().textContent()) ?? ''
    const lines = git(dir, 'status', '--porcelain', '--untracked-files=all').split('\n').filter(Boolean)
    const changed = lines.filter((l) => !l.slice(3).startsWith('.ralph/')).length
    const ralph = lines.some((l) => l.slice(3).startsWith('.ralph/'))
    return { header: text, same: text === `main·${changed} changed${ralph ? ' + .ralph/' : ''}` }
  }

  beforeAll(async () => {
    session = await startAppSession('bakery', {
      'index.html': '<h1>Bakery</h1>\n',
      'menu.html': '<ul><li>Bread</li></ul>\n',
      'about.html': '<p>Since 1990</p>\n',
    })
    ;({ llm, host, page, dir, projectId } = session)
    initRepo(dir)
    git(dir, 'add', 'index.html', 'menu.html', 'about.html')
    git(dir, 'commit', '-q', '-m', 'The bakery site')
    // The user's work in progress: a stash, a staged change, an unstaged change, an untracked file.
    write(dir, 'about.html', '<p>Since 1991</p>\n')
    git(dir, 'stash', 'push', '-q', '-m', 'about: wrong year?')
    write(dir, 'index.html', '<h1>Bakery (staged)</h1>\n')
    git(dir, 'add', 'index.html')
    write(dir, 'about.html', '<p>Since 1990, family run</p>\n')
    write(dir, 'draft.md', 'ideas, not for git yet\n')
  })

  afterAll(() => session?.close())

  it('shows the repository’s branch and changed files in the project header', async () => {
    await page.goto(`${host.origin}/#/project/${projectId}`)
    // index.html (staged), about.html (unstaged), draft.md (untracked); Ralph's own .ralph/ is not counted, but
    // named: git lists it.
    await expect
      .poll(headerAndGit)
      .toEqual({ header: expect.stringMatching(/^main·\d+ changed \+ \.ralph\/$/), same: true })
    await shoot('01-header')
  })

  it('runs a task; "Commit to my git" commits exactly its files and changes nothing else in the repository', async () => {
    llm.enqueue(
      {
        kind: 'json',
        value: {
          type: 'mutation',
          title: 'Add a price list',
          requirements: [{ marker: 'ADD', description: 'a price list', count: null }],
          scope: { preserve: [], affectedFiles: ['prices.html', 'menu.html'] },
          clarification: null,
        },
      },
      {
        kind: 'tools',
        calls: [
          { name: 'write_file', arguments: { path: 'prices.html', content: '<p>Loaf £3</p>\n' } },
          {
            name: 'write_file',
            arguments: {
              path: 'menu.html',
              content: '<ul><li>Bread</li></ul>\n<a href="prices.html">Prices</a>\n',
            },
          },
        ],
      },
      { kind: 'tools', calls: [{ name: 'mark_complete', arguments: { summary: 'Added prices.html.' } }] },
    )
    const box = page.getByRole('textbox', { name: 'Message' })
    await box.fill('add a price list')
    await box.press('Control+Enter')
    await card().getByText('Complete', { exact: true }).waitFor({ timeout: 30_000 })
    expect(read(dir, 'prices.html')).toBe('<p>Loaf £3</p>\n')

    headBefore = head(dir)
    before = userState(dir, TASK_FILES)

    // A detached HEAD is refused with its reason (and the header says so).
    git(dir, 'switch', '-q', '--detach')
    await refocus()
    await header().filter({ hasText: 'detached ' }).waitFor()
    await card().getByRole('button', { name: 'Commit to my git' }).click()
    let dialog = page.getByRole('dialog', { name: 'Commit to my git' })
    await dialog.getByRole('alert').filter({ hasText: 'detached HEAD' }).waitFor()
    expect(await dialog.getByRole('button', { name: 'Commit' }).getAttribute('aria-disabled')).toBe('true')
    await shoot('02-dialog-refused')
    await dialog.getByRole('button', { name: 'Cancel' }).click()
    await dialog.waitFor({ state: 'detached' })
    git(dir, 'switch', '-q', 'main')
    await refocus()
    await header().filter({ hasText: 'main·' }).waitFor()
    expect(userState(dir, TASK_FILES)).toEqual(before)

    await card().getByRole('button', { name: 'Commit to my git' }).click()
    dialog = page.getByRole('dialog', { name: 'Commit to my git' })
    const files = dialog.getByRole('list', { name: 'Files to commit' })
    await files.getByRole('listitem', { name: 'menu.html, modified' }).waitFor()
    await files.getByRole('listitem', { name: 'prices.html, added' }).waitFor()
    expect(await files.getByRole('listitem').count()).toBe(2)
    // Ralph's own files: apart, collapsed, not counted with the task's files.
    const own = dialog.getByTestId('commit-ralph-files')
    expect(await own.getAttribute('open')).toBeNull()
    await own.getByText('Ralph’s own files').click()
    await own
      .getByRole('list', { name: 'Ralph’s own files' })
      .getByText(/^\.ralph\//)
      .first()
      .waitFor()
    await shootThemes(page, 'queue-commit-preview')
    const message = dialog.getByRole('textbox', { name: 'Commit message' })
    expect(await message.inputValue()).toBe('Add a price list\n\nAdded prices.html.\n')
    await message.fill('Add a price list\n\nAdded prices.html and a link to it from the menu.\n')
    await shoot('03-dialog')

    await dialog.getByRole('button', { name: 'Commit' }).click()
    const toast = page.locator('[data-sonner-toast]').filter({ hasText: /^Committed [0-9a-f]{7,} to main/ })
    await toast.waitFor()
    await dialog.waitFor({ state: 'detached' })
    const hash = git(dir, 'rev-parse', '--short', 'HEAD').trim()
    await toast.getByText(`Committed ${hash} to main`).waitFor()
    await card()
      .getByTestId('task-commit')
      .filter({ hasText: `Committed ${hash}` })
      .waitFor()
    await shoot('04-committed')

    // Exactly one commit, on main, on top of the old HEAD, holding exactly the task's files as it left them.
    expect(git(dir, 'rev-parse', 'HEAD~1').trim()).toBe(headBefore)
    expect(git(dir, 'rev-list', '--count', `${headBefore}..HEAD`).trim()).toBe('1')
    expect(commitFiles(dir)).toEqual(TASK_FILES)
    expect(git(dir, 'log', '-1', '--format=%B')).toBe(
      'Add a price list\n\nAdded prices.html and a link to it from the menu.\n\n',
    )
    expect(git(dir, 'show', 'HEAD:prices.html')).toBe('<p>Loaf £3</p>\n')
    expect(git(dir, 'show', 'HEAD:index.html')).toBe('<h1>Bakery</h1>\n')
    // Nothing else changed: status of every other path, the index, both diffs, the stash, untracked files.
    expect(userState(dir, TASK_FILES)).toEqual(before)
    expect(git(dir, 'status', '--porcelain', '--', ...TASK_FILES)).toBe('')
    expect(git(dir, 'stash', 'list', '--format=%s')).toBe('On main: about: wrong year?\n')
    // The header follows: the task's files are no longer among the changed ones; Ralph's are still listed by git.
    await expect
      .poll(headerAndGit)
      .toEqual({ header: expect.stringMatching(/^main·\d+ changed \+ \.ralph\/$/), same: true })
  }, 90_000)

  it('hides .ralph/ from git status only when asked: one line in .git/info/exclude, .gitignore untouched', async () => {
    expect(git(dir, 'status', '--porcelain')).toMatch(/^\?\? \.ralph\/$/m)
    const exclude = join(dir, '.git', 'info', 'exclude')
    const excludeBefore = existsSync(exclude) ? readFileSync(exclude, 'utf8') : ''
    await header().getByRole('button', { name: 'Hide .ralph/ from git status' }).click()
    const dialog = page.getByRole('alertdialog', { name: 'Hide .ralph/ from git status?' })
    await dialog.getByText(/Your \.gitignore stays as it is/).waitFor()
    await shoot('06-hide-ralph-offer')
    // Cancel writes nothing.
    await dialog.getByRole('button', { name: 'Cancel' }).click()
    await dialog.waitFor({ state: 'detached' })
    expect(existsSync(exclude) ? readFileSync(exclude, 'utf8') : '').toBe(excludeBefore)

    await header().getByRole('button', { name: 'Hide .ralph/ from git status' }).click()
    await dialog.getByRole('button', { name: 'Add to .git/info/exclude' }).click()
    await dialog.waitFor({ state: 'detached' })
    await page
      .locator('[data-sonner-toast]')
      .filter({ hasText: 'Ralph’s files are hidden from git status' })
      .waitFor()
    expect(readFileSync(exclude, 'utf8')).toBe(
      `${excludeBefore}${excludeBefore && !excludeBefore.endsWith('\n') ? '\n' : ''}` +
        `# Ralph Studio's own files: added when you chose "Hide .ralph/ from git status".\n/.ralph/\n`,
    )
    expect(git(dir, 'status', '--porcelain', '--untracked-files=all')).not.toMatch(/\.ralph\//)
    expect(existsSync(join(dir, '.gitignore'))).toBe(false)
    // The header says what git says now: the user's changes, nothing of Ralph's, and no offer left.
    await expect
      .poll(headerAndGit)
      .toEqual({ header: expect.stringMatching(/^main·\d+ changed$/), same: true })
    expect(await header().getByRole('button', { name: 'Hide .ralph/ from git status' }).count()).toBe(0)
    await shoot('07-ralph-hidden')
  })

  it('the card still says committed after a reload, and offers committing again once the commit is reset away', async () => {
    const hash = git(dir, 'rev-parse', '--short', 'HEAD').trim()
    await page.reload()
    await card()
      .getByTestId('task-commit')
      .filter({ hasText: new RegExp(`^Committed ${hash}$`) })
      .waitFor()
    expect(await card().getByRole('button', { name: 'Commit to my git' }).count()).toBe(0)
    // What the card read: the commit as the app's database keeps it, with the task's run.
    const listed = await session.call('userGit.commits', { projectId })
    expect(listed).toMatchObject({
      ok: true,
      value: {
        commits: [
          {
            task: 1,
            runId: expect.any(Number),
            hash: head(dir),
            shortHash: hash,
            subject: 'Add a price list',
            state: 'on-branch',
          },
        ],
      },
    })

    git(dir, 'reset', '-q', '--hard', 'HEAD~1')
    await refocus()
    await card()
      .getByTestId('task-commit')
      .filter({ hasText: `Committed ${hash} (no longer on this branch)` })
      .waitFor()
    await card().getByRole('button', { name: 'Commit to my git' }).waitFor()
    await shoot('05-reset-away')
  })
})

// Issue 23: a project without git, where the model runs `git init` and plants an fsmonitor, a hook and a filter.
// The header and the dialog say which task created the repository and list what would run; nothing of it runs
// (a marker outside the project stays absent), and the commit happens only once the user confirms.
describe('an untrusted repository in Chromium', { timeout: 120_000 }, () => {
  let session: AppSession
  let page: Page
  let dir: string
  let projectId: number
  const outside = makeTempDir('ralph-outside-')
  const marker = join(outside.path, 'planted-ran')
  const ran = () => (existsSync(marker) ? readFileSync(marker, 'utf8') : '')
  const shoot = (name: string) => shootThemes(page, `userGit-untrusted-${name}`)
  const header = () => page.getByRole('group', { name: 'Your git' })
  const card = () =>
    page.getByRole('log', { name: 'Conversation' }).getByRole('article', { name: 'Task 1: Fix the menu' })

  beforeAll(async () => {
    session = await startAppSession('corner-shop', { 'menu.html': '<ul><li>Tea</li></ul>\n' })
    ;({ page, dir, projectId } = session)
  })
  afterAll(async () => {
    await session?.close()
    outside.cleanup()
  })

  it('says which task created the repository, lists what would run, runs none of it, and commits once confirmed', async () => {
    const evil = join(dir, 'evil.sh')
    session.llm.enqueue(
      {
        kind: 'json',
        value: {
          type: 'bugfix',
          title: 'Fix the menu',
          requirements: [],
          scope: { preserve: [], affectedFiles: ['menu.html'] },
          clarification: null,
        },
      },
      {
        kind: 'tools',
        calls: [
          {
            name: 'write_file',
            arguments: { path: 'evil.sh', content: `#!/bin/sh\necho "ran: $0 $*" >> ${marker}\nexit 0\n` },
          },
          {
            name: 'run_command',
            arguments: {
              command: [
                `chmod +x ${evil}`,
                'git init -q',
                'git config user.name M',
                'git config user.email m@example.com',
                `git config core.fsmonitor ${evil}`,
                `git config filter.x.clean '${evil} clean'`,
                `cp ${evil} .git/hooks/pre-commit`,
                `cp ${evil} .git/hooks/post-commit`,
                "printf '* filter=x\\n' > .gitattributes",
              ].join(' && '),
            },
          },
          {
            name: 'write_file',
            arguments: { path: 'menu.html', content: '<ul><li>Tea</li><li>Coffee</li></ul>\n' },
          },
        ],
      },
      { kind: 'tools', calls: [{ name: 'mark_complete', arguments: { summary: 'Added coffee.' } }] },
    )
    await page.goto(`${session.host.origin}/#/project/${projectId}`)
    const box = page.getByRole('textbox', { name: 'Message' })
    await box.fill('fix the menu')
    await box.press('Control+Enter')
    await card().getByText('Complete', { exact: true }).waitFor({ timeout: 60_000 })

    // The header: the branch, and "Untrusted".
    await page.evaluate('window.dispatchEvent(new Event("focus"))')
    const untrusted = header().getByRole('button', { name: 'Untrusted' })
    await untrusted.waitFor()
    await header().getByText('no commits yet').waitFor()
    await shoot('00-header')
    await untrusted.click()
    const trustDialog = page.getByRole('dialog', { name: 'Untrusted git repository' })
    await trustDialog.getByText('This folder’s git repository was created by task 1.').waitFor()
    const list = trustDialog.getByRole('list', { name: 'What it would run' })
    await list.getByRole('listitem', { name: `core.fsmonitor: ${evil}` }).waitFor()
    await list.getByRole('listitem', { name: `filter.x.clean: ${evil} clean` }).waitFor()
    await list
      .getByRole('listitem', { name: new RegExp(`^hook pre-commit: .*pre-commit — echo "ran: `) })
      .waitFor()
    await shoot('01-header-dialog')
    await trustDialog.getByRole('button', { name: 'Cancel' }).click()
    await trustDialog.waitFor({ state: 'detached' })
    expect(ran()).toBe('')

    // Commit to my git: the same words and list, Commit disabled until the user confirms.
    await card().getByRole('button', { name: 'Commit to my git' }).click()
    const dialog = page.getByRole('dialog', { name: 'Commit to my git' })
    const warning = dialog.getByTestId('commit-untrusted')
    await warning.getByText('This folder’s git repository was created by task 1.').waitFor()
    await warning.getByRole('listitem', { name: `core.fsmonitor: ${evil}` }).waitFor()
    expect(await dialog.getByRole('button', { name: 'Commit' }).getAttribute('aria-disabled')).toBe('true')
    await shoot('02-commit-dialog')
    await warning.getByRole('checkbox', { name: /Commit without running any of these/ }).check()
    await dialog.getByRole('button', { name: 'Commit' }).click()
    await page
      .locator('[data-sonner-toast]')
      .filter({ hasText: /^Committed [0-9a-f]{7,} to / })
      .waitFor()
    await dialog.waitFor({ state: 'detached' })
    expect(ran()).toBe('')
    // Committed as it is on disk: the planted clean filter did not run.
    expect(git(dir, '-c', 'core.fsmonitor=false', 'cat-file', 'blob', 'HEAD:menu.html')).toBe(
      '<ul><li>Tea</li><li>Coffee</li></ul>\n',
    )
  })
})
