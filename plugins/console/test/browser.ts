/**
 * What the console's browser tests share: a browser context that trusts the engine's certificate
 * and carries axe-core, the WCAG 2.1 A/AA check (no serious or critical violation), keyboard
 * helpers (focus, Tab until reached), a named test step, and the document's horizontal overflow.
 */
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import type { Browser, BrowserContextOptions, Locator, Page } from 'playwright-core'
import { expect } from 'vitest'

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8')

/** How long one Playwright wait may take before it fails and names what it waited for. */
export const STALL_MS = 20_000

/**
 * A context for the engine's console: its self-signed certificate accepted, axe-core loaded; with
 * `storageState`, the cookies of an earlier context (a session signed in once, reused).
 */
export const newContext = async (browser: Browser, viewport = { width: 1280, height: 900 }, storageState?: BrowserContextOptions['storageState']) => {
  const context = await browser.newContext({ ignoreHTTPSErrors: true, viewport, storageState })
  // axe-core comes in as an init script, like a test tool's: the page's CSP allows no inline script.
  await context.addInitScript({ content: AXE_SOURCE })
  // A wait that never ends fails in Playwright's words (which locator, on which page) before the
  // test's own 30 s end it with nothing but "timed out".
  context.setDefaultTimeout(STALL_MS)
  return context
}

/** Run one step of a test; when it fails, say which step, on which page, and what the page showed. */
export const step = async <T>(p: Page, what: string, f: () => Promise<T>): Promise<T> => {
  try {
    return await f()
  } catch (e) {
    const headings = await p.getByRole('heading').allTextContents().catch(() => [])
    throw new Error(`step "${what}" failed on ${p.url()} (headings: ${JSON.stringify(headings)}): ${e instanceof Error ? e.message : String(e)}`, { cause: e })
  }
}

interface Axe {
  run(context: unknown, options: object): Promise<{
    passes: unknown[]
    incomplete: unknown[]
    violations: Array<{ id: string; impact: string | null; help: string; nodes: Array<{ target: unknown[] }> }>
  }>
}

/** No serious or critical WCAG 2.1 A/AA violation on the page as it is now. */
export const checkA11y = async (p: Page, where: string) => {
  const result = await p.evaluate(async () => {
    // In the page: axe (the init script) and the document; this project's types have no DOM.
    const page = globalThis as unknown as { axe: Axe; document: unknown }
    const r = await page.axe.run(page.document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] }, resultTypes: ['violations'] })
    return { ...r, checked: r.passes.length + r.violations.length + r.incomplete.length }
  })
  // axe really looked (a page with no rule applicable would pass vacuously).
  expect(result.checked, where).toBeGreaterThan(10)
  const bad = result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${where}: ${v.id} (${v.impact}) ${v.help}: ${v.nodes.map((n) => JSON.stringify(n.target)).join(', ')}`)
  expect(bad).toEqual([])
}

/** Whether the element is the page's focused one (keyboard use: focus order). */
export const focused = (l: Locator) => l.evaluate((el) => el === (globalThis as unknown as { document: { activeElement: unknown } }).document.activeElement)

/** Press Tab until `target` has the focus (at most `max` times): the form is reachable in order. */
export const tabTo = async (p: Page, target: Locator, max = 30) => {
  for (let i = 0; i < max; i++) {
    if (await focused(target)) return
    await p.keyboard.press('Tab')
  }
  throw new Error(`Tab never reached ${String(target)}`)
}

/** The document's width against the window's: wider means the page scrolls sideways. */
export const documentWidth = (p: Page) =>
  p.evaluate(() => {
    const root = (globalThis as unknown as { document: { documentElement: { scrollWidth: number; clientWidth: number } } }).document.documentElement
    return { scrollWidth: root.scrollWidth, clientWidth: root.clientWidth }
  })
