import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { shootThemes } from '../helpers/browser'
import { startAppSession, type AppSession } from '../helpers/appSession'

// Compare's From and To in Chromium against the real `npm run web`, on a history longer than one page of the
// pickers: the old snapshot is found through the core's search and compared.
describe('Compare reaches a snapshot beyond the first page', { timeout: 180_000 }, () => {
  let session: AppSession
  let page: Page
  let projectId: number
  const LATER = 110
  const shoot = (name: string) => shootThemes(page, `compareFind-${name}`)
  const options = (name: 'From' | 'To') =>
    page
      .getByRole('combobox', { name })
      .locator('option')
      .evaluateAll((os) => os.map((o) => (o as unknown as { value: string }).value))

  beforeAll(async () => {
    session = await startAppSession('archive', { 'menu.txt': 'rye\n' })
    ;({ page, projectId } = session)
  })

  afterAll(() => session?.close())

  it('finds an old snapshot by its message, chooses it as From and lists what changed since', async () => {
    const file = (name: string) => join(session.dir, name)
    writeFileSync(file('menu.txt'), 'rye\nspelt\n')
    const old = await session.call('snapshots.save', {
      projectId,
      kind: 'manual',
      message: 'the first draft of the menu',
    })
    expect(old.ok).toBe(true)
    const oldTag = old.value.tag as string
    // More snapshots than one page of the pickers (100), each with a change of its own.
    let newest = ''
    for (let i = 1; i <= LATER; i++) {
      writeFileSync(file('counter.txt'), `${i}\n`)
      const saved = await session.call('snapshots.save', { projectId, kind: 'manual', message: `save ${i}` })
      expect(saved.ok).toBe(true)
      newest = saved.value.tag as string
    }

    await page.goto(`${session.host.origin}/#/project/${projectId}?panel=timeline`)
    const item = page
      .getByRole('list', { name: 'Snapshots' })
      .getByRole('listitem', { name: new RegExp(`^${newest},`) })
    await item.getByRole('button', { name: 'Compare' }).click()
    await expect.poll(() => page.getByRole('combobox', { name: 'To' }).inputValue()).toBe(newest)
    await page
      .getByTestId('compare-find-count')
      .filter({ hasText: /^From and To list the newest 100 of 11\d snapshots$/ })
      .waitFor()
    expect(await options('From')).not.toContain(oldTag)
    await shoot('01-paged')

    await page.getByRole('searchbox', { name: 'Find a snapshot' }).fill('first draft')
    await page
      .getByTestId('compare-find-count')
      .filter({ hasText: 'From and To list the one snapshot mentioning “first draft”' })
      .waitFor()
    expect(await options('From')).toContain(oldTag)
    await shoot('02-found')

    await page.getByRole('combobox', { name: 'From' }).selectOption(oldTag)
    const files = page.getByRole('list', { name: 'Changed files' })
    await files.getByRole('listitem', { name: /^counter\.txt, added/ }).waitFor({ timeout: 30_000 })
    expect(await files.getByRole('listitem', { name: /^menu\.txt/ }).count()).toBe(0)
    expect(await page.getByRole('combobox', { name: 'From' }).inputValue()).toBe(oldTag)
    await shoot('03-compared')
  })
})
