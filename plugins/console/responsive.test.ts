/**
 * The console on a phone (390 px wide) and on a laptop (1280 px), in Debian's Chromium against a
 * real engine with every built-in extension: no page scrolls the document sideways at either width
 * and axe finds no serious or critical WCAG 2.1 A/AA violation on any of them at 390 px (markup and
 * colours are the same at both widths; browser.test.ts runs axe on the desktop layout); on the phone the
 * navigation folds behind a "Menu" button that works by keyboard. The audit log fits 1280 px with
 * one-line times (in full as their title) and its detail as key/value lines; a participant already
 * talking when the Rooms page opens shows as speaking; the Overrides hint follows the provider; a
 * webhook URL refusal names the rule applied; empty lists say what to do next.
 * With HARK_CONSOLE_SHOTS=<dir> it also writes screenshots there. Waits are on page conditions.
 */
import { existsSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import defaultConfig from '../../engine.config.js'
import { CHROMIUM } from '../../core/test/chromium.js'
import { startTestEngine, uplink } from '../../core/test/helpers.js'
import { createApiKey, revealDevicePassword } from '../../core/operations/credentials.js'
import { createClient } from '../../core/operations/clients.js'
import { issueClientToken } from '../../core/operations/tokens.js'
import { OPERATOR } from '../../core/people/audit.js'
import { People } from '../../core/people/people.js'
import { WsTerminal } from '../../transports/webrtc/test/wsTerminal.js'
import { bundleDir } from './server.js'
import { checkA11y, documentWidth, focused, newContext, step, tabTo } from './test/browser.js'

const ADMIN = { email: 'ada@example.com', password: 'responsive passphrase' }
const PHONE = { width: 390, height: 844 }
const LAPTOP = { width: 1280, height: 800 }
const SHOTS = process.env.HARK_CONSOLE_SHOTS

let t: Awaited<ReturnType<typeof startTestEngine>>
let browser: Browser
let base: string
const ids = {} as { ws: string; empty: string; agent: string }
const terminals: WsTerminal[] = []

const shot = async (p: Page, name: string) => {
  if (!SHOTS) return
  mkdirSync(SHOTS, { recursive: true })
  await p.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true })
}

/** The admin's session: signed in once through the form (beforeAll), its cookie reused by every page. */
let session: BrowserContextOptions['storageState']

/** A signed-in admin's page at this size, freshly loaded at `path` (the Clients page unless said). */
const signedIn = async (viewport: { width: number; height: number }, path = `/w/${ids.ws}/clients`, ready = 'tr[data-client="hall-panel"]'): Promise<{ context: BrowserContext; page: Page }> => {
  const context = await newContext(browser, viewport, session)
  const page = await context.newPage()
  await open(page, path, ready)
  return { context, page }
}

/** Open a page by its address and wait for what shows it has its data. */
const open = async (p: Page, path: string, ready: string) => {
  await p.goto(`${base}${path}`)
  await p.locator(ready).first().waitFor()
}

/**
 * Go to a page inside the running app, as its own links do (history entry + the router's popstate),
 * without loading the document again; then wait for what shows the page has its data. Consecutive
 * pages of PAGES never share a ready selector and a component, so an old page cannot pass for the new.
 */
const visit = async (p: Page, path: string, ready: string) => {
  await p.evaluate(async (to) => {
    const w = globalThis as unknown as { history: { pushState(s: null, t: string, u: string): void }; dispatchEvent(e: unknown): void; PopStateEvent: new (type: string) => unknown }
    w.history.pushState(null, '', to)
    w.dispatchEvent(new w.PopStateEvent('popstate'))
    // One turn of the page's event loop: the router's re-render has replaced the old page.
    await new Promise((resolve) => setTimeout(resolve, 0))
  }, path)
  await p.locator(ready).first().waitFor()
}

/** A terminal on the WebSocket gateway as a client of the workspace. */
const terminal = async (clientId: string) => {
  const { token } = await issueClientToken(t.engine.host, ids.ws, clientId, 3600)
  const term = await WsTerminal.connect(t.engine.ports.gateway!, token, t.engine.host.tls.cert)
  await term.event('session')
  terminals.push(term)
  return term
}

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: run \`bash .ci/system-deps\` (installs Debian's chromium)`)
  if (bundleDir() === null) throw new Error('the console bundle is not built: run npm run build')
  // Private networks allowed: the webhook URL rule is then "https or http", which the page must say.
  t = await startTestEngine({ extensions: defaultConfig.extensions, webhooks: { allowPrivateNetworks: true }, xiaozhi: { autoAgent: false } })
  base = `https://127.0.0.1:${t.engine.ports.console}`
  const host = t.engine.host
  const people = new People(host.storage, host.security, host.clock)
  const admin = await people.createUser({ email: ADMIN.email, name: 'Ada', password: ADMIN.password }, OPERATOR)
  ids.ws = people.createWorkspace(admin.userId, 'Acme Devices', OPERATOR).workspaceId
  ids.empty = people.createWorkspace(admin.userId, 'Empty', OPERATOR).workspaceId
  const who = { userId: admin.userId, label: ADMIN.email, ip: '127.0.0.1' }
  people.invite(ids.ws, { email: 'carol.with.a.long.address@example.com', role: 'viewer' }, who)
  createApiKey(host, ids.ws, 'production back end', who)
  for (const [clientId, name, kind, room] of [
    ['kitchen-speaker', 'Kitchen speaker', 'device', 'kitchen'],
    ['hall-panel', 'Hall panel', 'device', 'lobby'],
    ['talker', 'Front desk tablet', 'app', 'lobby'],
    ['quiet', 'Website widget', 'web', 'lobby'],
    ['garden-microphone-by-the-north-gate', 'Garden microphone', 'device', 'garden'],
  ] as const) {
    createClient(host, ids.ws, { clientId, name, kind, room })
  }
  for (const clientId of ['kitchen-speaker', 'hall-panel']) revealDevicePassword(host, ids.ws, clientId, who, { generate: true })
  const now = host.clock.now()
  host.storage.agentPresets.insert({ workspaceId: ids.ws, presetId: 'greeter', name: 'Greeter', provider: 'echo', config: { silenceMs: 700 }, createdAt: now, updatedAt: now })
  // An echo agent, for its page (live control, tool calls, conversation).
  ids.agent = (await host.agents.dispatch(ids.ws, 'garden', {})).agentId
  host.storage.agentPresets.insert({ workspaceId: ids.ws, presetId: 'concierge', name: 'Concierge', provider: 'openai-realtime', config: {}, createdAt: now, updatedAt: now })
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--ignore-certificate-errors'] })
  const context = await newContext(browser)
  const page = await context.newPage()
  await page.goto(`${base}/sign-in`)
  await page.getByLabel('Email').fill(ADMIN.email)
  await page.getByLabel('Password').fill(ADMIN.password)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.getByRole('heading', { name: 'Clients' }).waitFor()
  session = await context.storageState()
  await context.close()
}, 60_000)

afterAll(async () => {
  for (const term of terminals) term.close()
  await browser?.close()
  await t?.stop()
})

/** Every page of the console, by address, with what shows it is loaded. */
const PAGES: ReadonlyArray<readonly [string, () => string, string]> = [
  ['clients', () => `/w/${ids.ws}/clients`, 'tr[data-client="hall-panel"]'],
  ['client', () => `/w/${ids.ws}/clients/hall-panel`, 'text=Reveal device password'],
  ['new client', () => `/w/${ids.ws}/clients/new`, 'text=Create client'],
  ['rooms', () => `/w/${ids.ws}/rooms`, 'h1:has-text("Rooms")'],
  ['agents', () => `/w/${ids.ws}/agents`, 'text=Dispatch agent'],
  ['agent', () => `/w/${ids.ws}/agents/${ids.agent}`, 'text=Live control'],
  ['presets', () => `/w/${ids.ws}/agents/presets`, 'text=Save preset'],
  ['room default agents', () => `/w/${ids.ws}/agents/defaults`, 'text=Show default agent'],
  ['usage', () => `/w/${ids.ws}/usage`, '.chart canvas'],
  ['webhooks', () => `/w/${ids.ws}/webhooks`, 'text=Create webhook'],
  ['add device', () => `/w/${ids.ws}/devices`, 'text=Devices added by code'],
  ['api keys', () => `/w/${ids.ws}/api-keys`, 'text=production back end'],
  ['members', () => `/w/${ids.ws}/members`, 'text=carol.with.a.long.address@example.com'],
  ['audit log', () => `/w/${ids.ws}/audit`, 'td:has-text("apikey.created")'],
  ['settings', () => `/w/${ids.ws}/settings`, 'text=Rotate signing secret'],
  ['workspaces', () => '/workspaces', 'text=Create workspace'],
  ['account', () => '/account', 'text=Change password'],
  ['empty clients', () => `/w/${ids.empty}/clients`, '.empty'],
  ['empty rooms', () => `/w/${ids.empty}/rooms`, '.empty'],
  ['empty agents', () => `/w/${ids.empty}/agents`, '.empty'],
  ['empty presets', () => `/w/${ids.empty}/agents/presets`, '.empty'],
  ['empty webhooks', () => `/w/${ids.empty}/webhooks`, '.empty'],
  ['empty api keys', () => `/w/${ids.empty}/api-keys`, '.empty'],
]

describe('the console at 390 px and at 1280 px', () => {
  it('fits every page into 390 px and 1280 px without scrolling the document sideways, and axe finds nothing serious at 390 px', async () => {
    const { context, page } = await signedIn(PHONE)
    try {
      for (const [name, path, ready] of PAGES) {
        await step(page, `open ${name}`, () => visit(page, path(), ready))
        for (const [label, viewport] of [['390 px', PHONE], ['1280 px', LAPTOP]] as const) {
          await page.setViewportSize(viewport)
          const { scrollWidth, clientWidth } = await documentWidth(page)
          expect(scrollWidth, `${name} at ${label}`).toBeLessThanOrEqual(clientWidth)
          expect(clientWidth, `${name} at ${label}`).toBe(viewport.width)
          // axe's rules look at markup, names, roles and colours, which both widths share; what
          // differs is the layout (the folded navigation on a phone), so axe runs at 390 px, where
          // that layout is, and browser.test.ts runs it on the desktop layout of the main pages.
          if (viewport === PHONE) await step(page, `axe on ${name}`, () => checkA11y(page, `${name} at ${label}`))
        }
        await page.setViewportSize(PHONE)
      }
      // Sign-in, signed out, at both widths.
      const anonymous = await (await newContext(browser, PHONE)).newPage()
      await anonymous.goto(`${base}/sign-in`)
      await anonymous.getByLabel('Email').waitFor()
      for (const viewport of [PHONE, LAPTOP]) {
        await anonymous.setViewportSize(viewport)
        expect((await documentWidth(anonymous)).scrollWidth).toBeLessThanOrEqual(viewport.width)
      }
      await anonymous.setViewportSize(PHONE)
      await checkA11y(anonymous, 'sign-in at 390 px')
      await anonymous.context().close()
    } finally {
      await context.close()
    }
  }, 120_000)

  it('folds the navigation behind a Menu button on a phone, operable by keyboard alone', async () => {
    const { context, page } = await signedIn(PHONE)
    try {
      const menu = page.getByRole('button', { name: 'Menu' })
      const rooms = page.getByRole('link', { name: 'Rooms', exact: true })
      expect(await menu.getAttribute('aria-expanded')).toBe('false')
      expect(await rooms.isVisible()).toBe(false)
      await shot(page, '390-clients')
      // From the top of a freshly loaded page: Tab reaches the button, Enter opens the menu.
      await tabTo(page, menu, 5)
      await page.keyboard.press('Enter')
      expect(await menu.getAttribute('aria-expanded')).toBe('true')
      await rooms.waitFor()
      expect(await page.getByLabel('Workspace', { exact: true }).isVisible()).toBe(true)
      await checkA11y(page, 'menu open at 390 px')
      await shot(page, '390-menu-open')
      // Tab on to a page link, Enter opens it; the menu folds.
      await tabTo(page, rooms)
      await page.keyboard.press('Enter')
      await page.getByRole('heading', { name: 'Rooms' }).waitFor()
      expect(await menu.getAttribute('aria-expanded')).toBe('false')
      expect(await rooms.isVisible()).toBe(false)
      // Space opens it, Escape folds it and gives the button the focus back.
      await menu.focus()
      await page.keyboard.press('Space')
      await rooms.waitFor()
      await tabTo(page, page.getByRole('link', { name: 'Audit log', exact: true }))
      await page.keyboard.press('Escape')
      expect(await menu.getAttribute('aria-expanded')).toBe('false')
      expect(await focused(menu)).toBe(true)
      expect(await rooms.isVisible()).toBe(false)
      // At 1280 px nothing folds: no Menu button, the links in the sidebar.
      await page.setViewportSize(LAPTOP)
      await rooms.waitFor()
      expect(await menu.count()).toBe(0)
    } finally {
      await context.close()
    }
  })

  it('shows the audit log within 1280 px: one-line times with the full time as title, detail as key/value lines', async () => {
    const { context, page } = await signedIn(LAPTOP, `/w/${ids.ws}/audit`, 'td:has-text("apikey.created")')
    try {
      await shot(page, '1280-audit')
      const table = page.locator('.table-scroll')
      expect(await table.evaluate((el) => [el.scrollWidth, el.clientWidth])).toEqual([expect.any(Number), await table.evaluate((el) => el.scrollWidth)])
      const when = page.locator('tbody tr').first().locator('time')
      expect(await when.getAttribute('datetime')).toMatch(/^\d{4}-\d\d-\d\dT/)
      expect(await when.getAttribute('title')).toMatch(/\d{4}/)
      // One line: no taller than the line height of its cell's text.
      const lines = await when.evaluate((el) => {
        const style = (globalThis as unknown as { getComputedStyle(e: unknown): { lineHeight: string } }).getComputedStyle(el)
        return (el as unknown as { getBoundingClientRect(): { height: number } }).getBoundingClientRect().height / parseFloat(style.lineHeight)
      })
      expect(lines).toBeLessThan(1.5)
      const keyRow = page.locator('tr', { has: page.locator('td', { hasText: 'apikey.created' }) })
      expect(await keyRow.locator('dt').allTextContents()).toEqual(['name'])
      expect(await keyRow.locator('dd').allTextContents()).toEqual(['production back end'])
      expect(await page.content()).not.toContain('{"name":')
    } finally {
      await context.close()
    }
    const phone = await signedIn(PHONE, `/w/${ids.ws}/audit`, 'td:has-text("apikey.created")')
    // Wider than a phone, the table scrolls in its own named, focusable region.
    const region = phone.page.getByRole('region', { name: /Security events of Acme Devices/ })
    expect(await region.getAttribute('tabindex')).toBe('0')
    await shot(phone.page, '390-audit')
    await visit(phone.page, `/w/${ids.ws}/clients/new`, 'text=Create client')
    await shot(phone.page, '390-new-client')
    await phone.context.close()
  })

  it('shows a participant already talking when the Rooms page opens as speaking', async () => {
    const listener = await terminal('quiet')
    const talker = await terminal('talker')
    // The talker keeps talking (a voiced frame every 20 ms) while the page opens.
    const talking = setInterval(() => talker.sendAudio(uplink([0xf8, 0xff, 0xfe], 0x80 | 20)), 20)
    try {
      await listener.event('speaking.started', (e) => e.participantId === 'talker')
      const { context, page } = await signedIn(PHONE)
      try {
        await page.goto(`${base}/w/${ids.ws}/rooms`)
        // Its spurt began before the page opened: no live event says so, the room view does.
        await page.locator('[data-participant="talker"][data-speaking="true"]').waitFor()
        expect(await page.locator('[data-participant="quiet"]').getAttribute('data-speaking')).toBe('false')
        expect(await page.locator('[data-participant="talker"]').textContent()).toContain('speaking')
        await shot(page, '390-rooms')
        // It stops: the live event says so.
        clearInterval(talking)
        await page.locator('[data-participant="talker"][data-speaking="false"]').waitFor()
      } finally {
        await context.close()
      }
    } finally {
      clearInterval(talking)
    }
  })

  it('hints overrides from the chosen provider’s schema, labels its settings for people, and states the webhook URL rule applied', async () => {
    const { context, page } = await signedIn(LAPTOP, `/w/${ids.ws}/agents`, 'text=Dispatch agent')
    try {
      const overrides = page.getByLabel('Overrides (JSON)')
      // The platform default is agents.defaultProvider (echo).
      await expect.poll(() => overrides.getAttribute('placeholder')).toBe('{"silenceMs": 500}')
      expect(await page.locator('#overrides-hint').textContent()).toContain('Keys: silenceMs, thresholdDbov')
      await page.getByLabel('Preset', { exact: true }).selectOption('concierge')
      await expect.poll(() => overrides.getAttribute('placeholder')).toBe('{"model": "gpt-realtime"}')
      expect(await page.locator('#overrides-hint').textContent()).toContain('openai-realtime provider')
      await overrides.fill('["not", "an object"]')
      await page.getByLabel('Room', { exact: true }).fill('lobby')
      await page.getByRole('button', { name: 'Dispatch agent' }).click()
      await expect.poll(() => page.getByRole('alert').textContent()).toBe('Overrides must be a JSON object, e.g. {"model": "gpt-realtime"}.')

      await page.getByRole('link', { name: 'Presets' }).click()
      await page.getByLabel('Provider').selectOption('openai-realtime')
      for (const label of ['Model', 'Voice', 'Instructions', 'VAD silence (ms)', 'Input transcription model', 'Allowed device tools (one per line)', 'Max tool rounds', 'Tool timeout (ms)', 'Max tool result chars']) expect(await page.getByLabel(label, { exact: true }).count(), label).toBe(1)

      await visit(page, `/w/${ids.ws}/webhooks`, 'text=Create webhook')
      expect(await page.getByText('An https:// or http:// URL, any host (webhooks.allowPrivateNetworks is on).').count()).toBe(1)
      await page.getByLabel('Endpoint URL').fill('ftp://127.0.0.1/hooks')
      await page.getByRole('button', { name: 'Create webhook' }).click()
      await expect.poll(() => page.getByRole('alert').textContent()).toBe('url: must be https or http (webhooks.allowPrivateNetworks is on)')
    } finally {
      await context.close()
    }
  })

  it('says what to do next on every empty list: a link or the CLI command', async () => {
    const { context, page } = await signedIn(PHONE, `/w/${ids.empty}/clients`, '.empty')
    try {
      for (const [page_, expectLink, command] of [
        ['clients', 'Create a client', `hark client create CLIENT-ID --workspace ${ids.empty} --room lobby`],
        ['rooms', 'Clients', null],
        ['agents', 'default agent', null],
        ['agents/presets', null, `hark preset create PRESET-ID --workspace ${ids.empty} --provider echo`],
        ['webhooks', null, `hark webhook create URL --workspace ${ids.empty}`],
        ['api-keys', null, `hark apikey create --workspace ${ids.empty}`],
        ['devices', null, `hark xiaozhi activate CODE --workspace ${ids.empty} --client CLIENT-ID`],
      ] as const) {
        await visit(page, `/w/${ids.empty}/${page_}`, '.empty')
        const empty = page.locator('.empty')
        if (expectLink) expect(await empty.getByRole('link', { name: expectLink, exact: true }).count(), page_).toBe(1)
        if (command) expect(await empty.locator('code').textContent(), page_).toBe(command)
      }
      await visit(page, `/w/${ids.empty}/clients`, '.empty')
      await shot(page, '390-clients-empty')
      await page.locator('.empty').getByRole('link', { name: 'Create a client' }).click()
      await page.getByRole('heading', { name: 'New client' }).waitFor()
      // Filters that match nothing offer to clear them.
      await visit(page, `/w/${ids.ws}/clients`, 'tr[data-client="hall-panel"]')
      await page.getByLabel('Filter by room').fill('nowhere')
      await page.getByRole('button', { name: 'Apply filters' }).click()
      await page.getByText('No clients match these filters.').waitFor()
      await page.getByRole('button', { name: 'Clear filters' }).click()
      await page.locator('tr[data-client="hall-panel"]').waitFor()
      expect(await page.getByLabel('Filter by room').inputValue()).toBe('')
    } finally {
      await context.close()
    }
  })
})
