import { existsSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { chromium, type Browser, type Page } from 'playwright-core'

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
export const SCREENSHOTS = join(process.cwd(), 'test-results', 'screenshots')

/** Debian's Chromium with the flags of DESIGN.md §12 (Playwright gives each launch a fresh profile). Never downloads a browser. */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`Chromium not found at ${CHROMIUM}. Install it with: apt-get install -y chromium`)
  }
  mkdirSync(SCREENSHOTS, { recursive: true })
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  })
}

/**
 * How long a page's actions and waits may take by default (Playwright's is 30 s): a 2-core machine running several
 * test files, or a second run beside, can take longer to render a screen. Waited for, never slept.
 */
export const PAGE_TIMEOUT_MS = 60_000

/** A page in a fresh context of `browser` (its own cookies and storage), with PAGE_TIMEOUT_MS for its waits. */
export async function openPage(browser: Browser, viewport: { width: number; height: number }): Promise<Page> {
  const context = await browser.newContext({ viewport })
  context.setDefaultTimeout(PAGE_TIMEOUT_MS)
  return context.newPage()
}

/** Where the file's shared Chromium is kept: fileSetup.ts closes it without importing Playwright into every file. */
export const SHARED_CHROMIUM = Symbol.for('ralph.tests.sharedChromium')
type Holder = { [SHARED_CHROMIUM]?: Promise<Browser> }

/**
 * One Chromium for the whole test file (vitest runs each file in its own process): every session of the file opens
 * its own context in it (its own cookies, storage and pages), so a file with several web hosts launches the
 * browser once. tests/helpers/fileSetup.ts closes it after the file's last test; a session closes only its context.
 */
export function sharedChromium(): Promise<Browser> {
  const holder = globalThis as Holder
  const current = holder[SHARED_CHROMIUM]
  if (current !== undefined) return current
  const launching = launchChromium()
  // A launch that failed is not kept: the next session tries again and reports its own error.
  launching.catch(() => {
    if (holder[SHARED_CHROMIUM] === launching) delete holder[SHARED_CHROMIUM]
  })
  holder[SHARED_CHROMIUM] = launching
  return launching
}

/**
 * Screenshots of the page as it is, in light and dark: each waits until the app has applied the emulated scheme
 * (the `data-theme` it sets, a frame for the components that follow it, then the colour transitions it started)
 * instead of a fixed pause.
 */
export async function shootThemes(page: Page, name: string): Promise<void> {
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme })
    await page.locator(`html[data-theme="${scheme}"]`).waitFor({ state: 'attached' })
    // Colours fade between themes (CSS transitions): the shot waits for them to end, or buttons look greyed out.
    // Strings, not functions: this file is compiled for Node, without the DOM's types.
    await page.evaluate('new Promise((resolve) => requestAnimationFrame(() => resolve(null)))')
    await page.evaluate(
      'Promise.all(document.getAnimations().filter((a) => a instanceof CSSTransition).map((a) => a.finished.catch(() => null)))',
    )
    await page.evaluate('new Promise((resolve) => requestAnimationFrame(() => resolve(null)))')
    await page.screenshot({ path: join(SCREENSHOTS, `${name}-${scheme}.png`) })
  }
  await page.emulateMedia({ colorScheme: 'light' })
}

/**
 * Records the text of every toast shown from now on, however briefly: a toast lives 4 s, which a page starved of
 * CPU beside other test files can outlast before a locator looks. Returns a reader for `expect.poll`.
 */
export async function recordToasts(page: Page): Promise<() => Promise<string[]>> {
  // Strings, not functions: the tests are compiled without the DOM's types.
  await page.evaluate(`(() => {
    const seen = (window.__toastsSeen = [])
    const read = (el) => {
      const text = (el.querySelector('[data-title]') ?? el).textContent ?? ''
      if (text && !seen.includes(text)) seen.push(text)
    }
    new MutationObserver(() => document.querySelectorAll('[data-sonner-toast]').forEach(read)).observe(
      document.body,
      { childList: true, subtree: true, characterData: true },
    )
  })()`)
  return () => page.evaluate<string[]>('window.__toastsSeen')
}
