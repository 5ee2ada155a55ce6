import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { shootThemes } from '../helpers/browser'
import { startAppSession, type AppSession } from '../helpers/appSession'
import { pngOfSize, solidPng } from '../helpers/png'
import { done, parsed, tools } from '../integration/loop/harness'

const mockup = solidPng(160, 100, [40, 110, 220, 255])
const pasted = solidPng(120, 120, [230, 120, 30, 255])

/** A paste of one PNG into the message box, as a browser raises it (a File in the clipboard's DataTransfer). */
async function pastePng(session: AppSession, png: Buffer, name: string): Promise<void> {
  // A string, not a function: this file is compiled for Node, without the DOM's types.
  await session.page.evaluate(`(() => {
    const bytes = Uint8Array.from(atob(${JSON.stringify(png.toString('base64'))}), (c) => c.charCodeAt(0))
    const data = new DataTransfer()
    data.items.add(new File([bytes], ${JSON.stringify(name)}, { type: 'image/png' }))
    const box = document.querySelector('textarea[aria-label="Message"]')
    box.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }))
  })()`)
}

/** Every image_url part the fake LLM server received, as its URL. */
function imageUrls(session: AppSession): string[] {
  const urls: string[] = []
  for (const request of session.llm.requests) {
    const messages = (request.body as { messages?: { content?: unknown }[] }).messages ?? []
    for (const message of messages) {
      if (!Array.isArray(message.content)) continue
      for (const part of message.content as { type?: string; image_url?: { url?: string } }[])
        if (part.type === 'image_url' && part.image_url?.url) urls.push(part.image_url.url)
    }
  }
  return urls
}

describe('images in the composer and on the card', { timeout: 180_000 }, () => {
  let session: AppSession
  beforeAll(async () => {
    session = await startAppSession('images', { 'index.html': '<h1>hi</h1>\n' })
  })
  afterAll(() => session?.close())

  it('attaches by the chooser and by paste, sends them to the model, and shows them on the card after a reload and a rollback', async () => {
    const { page, host, projectId, llm } = session
    llm.enqueue(
      parsed({ type: 'fresh', title: 'Match the mockup' }),
      tools(['write_file', { path: 'index.html', content: '<h1>styled</h1>\n' }]),
      done('Matched the mockup.'),
    )
    await page.goto(`${host.origin}/#/project/${projectId}`)
    const box = page.getByRole('textbox', { name: 'Message' })
    await box.fill('make the page look like these')
    const chooser = page.getByTestId('attach-images-input')

    // A file of another kind is refused before sending, saying why.
    await chooser.setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('hello') })
    const error = page.getByTestId('composer-images-error')
    await expect.poll(() => error.textContent()).toContain('notes.txt is not a PNG, JPEG, WebP or GIF image')
    await shootThemes(page, 'images-wrong-type')

    const fileChooser = page.waitForEvent('filechooser')
    await page.getByRole('button', { name: 'Attach images' }).click()
    await (await fileChooser).setFiles({ name: 'mockup.png', mimeType: 'image/png', buffer: mockup })
    await pastePng(session, pasted, 'screen.png')
    const attached = page.getByRole('list', { name: 'Images to send' })
    await attached.getByRole('img', { name: 'mockup.png' }).waitFor()
    await attached.getByRole('img', { name: 'screen.png' }).waitFor()
    expect(await error.count()).toBe(0)
    // This model (not in the catalog) is assumed to see images: no warning.
    expect(await page.getByTestId('composer-images-blind').count()).toBe(0)
    await shootThemes(page, 'images-composer')

    await page.getByRole('button', { name: 'Send' }).click()
    const log = page.getByRole('log', { name: 'Conversation' })
    const card = log.getByRole('article', { name: 'Task 1: Match the mockup' })
    await card.getByText('Complete', { exact: true }).waitFor({ timeout: 90_000 })
    expect(await attached.count()).toBe(0)

    const urls = imageUrls(session)
    expect(urls).toContain(`data:image/png;base64,${mockup.toString('base64')}`)
    expect(urls).toContain(`data:image/png;base64,${pasted.toString('base64')}`)

    const thumbs = card.getByRole('list', { name: 'Attached images' })
    await thumbs.getByRole('img', { name: 'mockup.png' }).waitFor()
    await thumbs.getByRole('img', { name: 'screen.png' }).waitFor()
    await page.evaluate(
      `document.querySelector('article [aria-label="Attached images"]').scrollIntoView({ block: 'center' })`,
    )
    await shootThemes(page, 'images-card')

    await card.getByRole('button', { name: 'Open mockup.png' }).click()
    const dialog = page.getByRole('dialog', { name: 'mockup.png' })
    const large = dialog.getByRole('img', { name: 'mockup.png' })
    await large.waitFor()
    expect(await large.getAttribute('src')).toBe(`data:image/png;base64,${mockup.toString('base64')}`)
    await shootThemes(page, 'images-large')
    await dialog.getByRole('button', { name: 'Close' }).click()
    await dialog.waitFor({ state: 'detached' })

    await page.reload()
    const again = log.getByRole('article', { name: 'Task 1: Match the mockup' })
    await again.getByRole('img', { name: 'mockup.png' }).waitFor()
    await again.getByRole('img', { name: 'screen.png' }).waitFor()

    // Stored before task-1-pre was taken: a rollback to before the task keeps them, and so does its Undo.
    const toast = () => page.locator('[data-sonner-toast]')
    await again.getByRole('button', { name: 'Roll back to before this task' }).click()
    const rollback = page.getByRole('alertdialog', { name: 'Roll back to task-1-pre' })
    await rollback.getByRole('button', { name: 'Roll back' }).click()
    await toast().getByText('Rolled back to task-1-pre', { exact: true }).waitFor()
    await expect.poll(() => readFileSync(join(session.dir, 'index.html'), 'utf8')).toBe('<h1>hi</h1>\n')
    await page.reload()
    await again.getByRole('img', { name: 'mockup.png' }).waitFor()
    await again.getByRole('button', { name: 'Open screen.png' }).waitFor()
    expect(existsSync(join(session.dir, '.ralph', 'attachments', 'task-1', 'mockup.png'))).toBe(true)
  })
})

describe('images for a model that cannot see them', { timeout: 180_000 }, () => {
  let session: AppSession
  beforeAll(async () => {
    session = await startAppSession(
      'images-blind',
      { 'index.html': '<h1>hi</h1>\n' },
      { RALPH_MODEL: 'o3-mini' },
    )
  })
  afterAll(() => session?.close())

  it('warns before sending, and the task goes on with their names instead', async () => {
    const { page, host, projectId, llm } = session
    llm.enqueue(
      parsed({ type: 'fresh', title: 'Follow the sketch' }),
      tools(['write_file', { path: 'index.html', content: '<h1>sketched</h1>\n' }]),
      done('Followed the sketch.'),
    )
    await page.goto(`${host.origin}/#/project/${projectId}`)
    await page.getByRole('textbox', { name: 'Message' }).fill('follow the sketch')
    // With one just under 5 MB: the call carrying both is past the host's 5 MB limit for other calls.
    await page.getByTestId('attach-images-input').setInputFiles([
      { name: 'sketch.png', mimeType: 'image/png', buffer: mockup },
      { name: 'photo.png', mimeType: 'image/png', buffer: pngOfSize(4.9 * 1024 * 1024) },
    ])
    const warning = page.getByTestId('composer-images-blind')
    await expect
      .poll(() => warning.textContent())
      .toContain('This model cannot see images: Ralph will tell it their names instead')
    await shootThemes(page, 'images-blind-warning')

    await page.getByRole('button', { name: 'Send' }).click()
    const card = page.getByRole('article', { name: 'Task 1: Follow the sketch' })
    await card.getByText('Complete', { exact: true }).waitFor({ timeout: 90_000 })
    expect(imageUrls(session)).toEqual([])
    expect(JSON.stringify(llm.requests.map((r) => r.body))).toContain(
      'sketch.png; this model cannot see images',
    )
  })
})
