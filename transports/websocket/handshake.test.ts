/**
 * Every shape of WebSocket opening handshake, as raw bytes over TLS, to both WebSocket routes of
 * the gateway (/v1/connect and the xiaozhi route) with a valid credential: each answer is either a
 * working session or a 4xx with the error envelope, and the engine lives through all of them.
 * Regression: a `Connection: close` line before `Connection: Upgrade` got 101 and then SIGSEGV
 * (uWS closed the socket under the asynchronous upgrade).
 */
import { connect, type TLSSocket } from 'node:tls'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { seedWorkspace, startTestEngine } from '../../core/test/helpers.js'
import { defineXiaozhi } from '../xiaozhi/index.js'
import { websocketTransport } from './index.js'

type Lines = readonly string[]
/** One request's header lines, in order: [name, value]. */
type Head = ReadonlyArray<readonly [string, string]>

const KEY = 'dGhlIHNhbXBsZSBub25jZQ=='
const VARIANTS: Readonly<Record<string, readonly Lines[]>> = {
  connection: [[], ['Upgrade'], ['upgrade'], ['UPGRADE'], ['close'], ['keep-alive'], [''], ['close', 'Upgrade'], ['Upgrade', 'close'],
    ['keep-alive, Upgrade'], ['Upgrade', 'Upgrade'], ['close, Upgrade'], ['Keep-Alive', 'Upgrade'], ['abcde', 'Upgrade'], ['Upgrade, close']],
  upgrade: [[], ['websocket'], ['WebSocket'], [''], ['websocket', 'websocket'], ['h2c'], ['h2c, websocket']],
  'sec-websocket-version': [[], ['13'], ['8'], [''], ['13', '13'], ['13, 8']],
  'sec-websocket-key': [[], [KEY], ['c2hvcnQ='], [KEY, KEY], ['!!!!!!!!!!!!!!!!!!!!!!=='], [''], ['AAAAAAAAAAAAAAAAAAAAAAAA']],
  'sec-websocket-protocol': [[], ['chat'], [''], ['a, b'], ['x', 'y']],
}
const VALID: Readonly<Record<string, Lines>> = {
  connection: ['Upgrade'], upgrade: ['websocket'], 'sec-websocket-version': ['13'], 'sec-websocket-key': [KEY], 'sec-websocket-protocol': [],
}
const NAME_CASES = [(n: string) => n, (n: string) => n.toUpperCase(), (n: string) => n.replace(/(^|-)([a-z])/g, (_, d: string, c: string) => d + c.toUpperCase())]

/** The handshake the RFC and spec/websocket.md accept (an independent statement of the rule). */
const acceptable = (h: Readonly<Record<string, Lines>>): boolean => {
  const tokens = (lines: Lines) => lines.flatMap((l) => l.split(',')).map((t) => t.trim().toLowerCase()).filter(Boolean)
  const connection = h.connection!
  return tokens(connection).includes('upgrade') && !tokens(connection).includes('close') && connection[0]!.length !== 5 &&
    tokens(h.upgrade!).includes('websocket') &&
    h['sec-websocket-version']!.length === 1 && h['sec-websocket-version']![0] === '13' &&
    h['sec-websocket-key']!.length === 1 && /^[A-Za-z0-9+/]{22}==$/.test(h['sec-websocket-key']![0]!)
}

const headOf = (h: Readonly<Record<string, Lines>>, nameCase = NAME_CASES[0]!): Head =>
  Object.entries(h).flatMap(([name, lines]) => lines.map((v) => [nameCase(name), v] as const))

/** A deterministic shuffle (mulberry32), so a failing order can be replayed. */
const shuffled = <T,>(items: readonly T[], seed: number): T[] => {
  let a = seed
  const random = () => {
    a = (a + 0x6d2b79f5) | 0
    let t = Math.imul(a ^ (a >>> 15), 1 | a)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  const out = [...items]
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1))
    ;[out[i], out[j]] = [out[j]!, out[i]!]
  }
  return out
}

/** Every order of `items` (the repro has five lines: 120 orders). */
const permutations = <T,>(items: readonly T[]): T[][] =>
  items.length <= 1 ? [[...items]] : items.flatMap((x, i) => permutations([...items.slice(0, i), ...items.slice(i + 1)]).map((p) => [x, ...p]))

/** A masked client text frame (RFC 6455 §5.2), for the device's hello. */
const maskedText = (text: string): Buffer => {
  const payload = Buffer.from(text)
  const mask = Buffer.from([1, 2, 3, 4])
  const header = payload.length < 126 ? Buffer.from([0x81, 0x80 | payload.length]) : Buffer.from([0x81, 0x80 | 126, payload.length >> 8, payload.length & 0xff])
  return Buffer.concat([header, mask, payload.map((b, i) => b ^ mask[i % 4]!)])
}

interface Answer {
  readonly status: number | null
  readonly head: string
  readonly body: string
}

let t: Awaited<ReturnType<typeof startTestEngine>>
let port: number
let ca: string
let token: string
let password: string

beforeAll(async () => {
  t = await startTestEngine({ extensions: [websocketTransport, ...defineXiaozhi({})], xiaozhi: { autoAgent: false } })
  const seed = seedWorkspace(t.engine)
  seed.addClient('terminal', 'lobby')
  seed.addClient('device', 'lobby')
  token = (await t.engine.host.security.tokens.issue(seed.workspaceId, 'terminal', null)).token
  password = t.engine.host.security.devicePasswords.reset(seed.workspaceId, 'device').password
  port = t.engine.ports.gateway!
  ca = t.engine.host.tls.cert
})
afterAll(() => t?.stop())

const ROUTES = {
  connect: { path: () => `/v1/connect?token=${token}`, auth: (): Head => [], until: '"type":"session"', hello: null },
  xiaozhi: {
    path: () => '/xiaozhi/v1/',
    auth: (): Head => [['Authorization', `Bearer ${password}`], ['Protocol-Version', '1'], ['Device-Id', '02:00:00:00:00:01']],
    until: '"type":"hello"',
    hello: JSON.stringify({ type: 'hello', version: 1, transport: 'websocket', audio_params: { format: 'opus', sample_rate: 16000, channels: 1, frame_duration: 60 } }),
  },
} as const

/**
 * Send one request head and read the answer: for a 101, until the session's first message
 * (`until`) arrives, then close; otherwise until the server closes the connection.
 */
const exchange = (route: keyof typeof ROUTES, head: Head): Promise<Answer> => {
  const r = ROUTES[route]
  const lines = [['Host', 'h'] as const, ...r.auth(), ...head].map(([n, v]) => `${n}: ${v}\r\n`).join('')
  return new Promise((resolve, reject) => {
    const socket: TLSSocket = connect({ port, host: '127.0.0.1', ca, servername: 'localhost', checkServerIdentity: () => undefined }, () =>
      socket.write(`GET ${r.path()} HTTP/1.1\r\n${lines}\r\n`),
    )
    let data = Buffer.alloc(0)
    let helloSent = false
    const answer = (): Answer => {
      const text = data.toString('latin1')
      const end = text.indexOf('\r\n\r\n')
      const head = end < 0 ? text : text.slice(0, end)
      const status = /^HTTP\/1\.1 (\d{3}) /.exec(head)
      return { status: status ? Number(status[1]) : null, head, body: end < 0 ? '' : text.slice(end + 4) }
    }
    socket.on('data', (d: Buffer) => {
      data = Buffer.concat([data, d])
      const a = answer()
      if (a.status !== 101) return
      if (r.hello && !helloSent && a.body !== null) {
        helloSent = true
        socket.write(maskedText(r.hello))
      }
      if (a.body.includes(r.until)) {
        socket.destroy()
        resolve(a)
      }
    })
    socket.on('error', reject)
    socket.on('close', () => resolve(answer()))
  })
}

/** A 101 that led to a working session, or a 4xx with the JSON envelope; which one the rule says. */
const expectAnswer = (a: Answer, accepted: boolean, what: string) => {
  if (accepted) {
    expect(a.status, what).toBe(101)
  } else {
    expect(a.status, what).toBeGreaterThanOrEqual(400)
    expect(a.status, what).toBeLessThan(500)
    const envelope = JSON.parse(a.body) as { error: { message: string; code: string } }
    expect(typeof envelope.error.message, what).toBe('string')
    expect(typeof envelope.error.code, what).toBe('string')
  }
}

/** Run `check` over `items`, eight requests in flight at a time. */
const eachAtOnce = async <T,>(items: readonly T[], check: (item: T) => Promise<void>): Promise<void> => {
  let next = 0
  const lane = async () => {
    while (next < items.length) await check(items[next++]!)
  }
  await Promise.all(Array.from({ length: 8 }, lane))
}

const alive = async () => {
  const a = await exchange('connect', headOf(VALID))
  expect(a.status).toBe(101)
  expect(a.body).toContain('"type":"session"')
}

describe.each(['connect', 'xiaozhi'] as const)('WebSocket handshakes on the %s route', (route) => {
  it('refuses the reported request (Connection: close before Connection: Upgrade) with 400 and lives', async () => {
    const head: Head = [['Connection', 'close'], ['Upgrade', 'websocket'], ['Connection', 'Upgrade'], ['Sec-WebSocket-Version', '13'], ['Sec-WebSocket-Key', KEY]]
    const a = await exchange(route, head)
    expect(a.status).toBe(400)
    expect(JSON.parse(a.body)).toEqual({ error: { code: 'protocol_error', message: 'a WebSocket upgrade cannot ask to close the connection (Connection: close)' } })
    await alive()
  })

  it('answers every order of the reported request the same way', async () => {
    const lines: Head = [['Connection', 'close'], ['Upgrade', 'websocket'], ['Connection', 'Upgrade'], ['Sec-WebSocket-Version', '13'], ['Sec-WebSocket-Key', KEY]]
    await eachAtOnce(permutations(lines), async (order) => {
      const a = await exchange(route, order)
      expect(a.status, order.map((l) => l.join(': ')).join(' | ')).toBe(400)
    })
    await alive()
  })

  it('answers each variant of each header, in three spellings of the names, as the rule says', async () => {
    const cases = Object.entries(VARIANTS).flatMap(([name, variants]) => variants.flatMap((lines) => NAME_CASES.map((nameCase) => ({ name, lines, nameCase }))))
    await eachAtOnce(cases, async ({ name, lines, nameCase }) => {
      const h = { ...VALID, [name]: lines }
      expectAnswer(await exchange(route, headOf(h, nameCase)), acceptable(h), `${nameCase(name)}: ${JSON.stringify(lines)}`)
    })
    await alive()
  })

  it('answers every pair of Connection and Upgrade variants, and shuffled mixtures of all headers, as the rule says', async () => {
    const pairs = VARIANTS.connection!.flatMap((connection) => VARIANTS.upgrade!.map((upgrade) => ({ ...VALID, connection, upgrade })))
    await eachAtOnce(pairs, async (h) => expectAnswer(await exchange(route, headOf(h)), acceptable(h), JSON.stringify(h)))
    const pick = <T,>(items: readonly T[], seed: number): T => shuffled(items, seed)[0]!
    const seeds = Array.from({ length: 60 }, (_, i) => i + 1)
    await eachAtOnce(seeds, async (seed) => {
      const h = Object.fromEntries(Object.entries(VARIANTS).map(([name, variants], i) => [name, pick(variants, seed * 31 + i)]))
      const head = shuffled(headOf(h, NAME_CASES[seed % 3]), seed)
      expectAnswer(await exchange(route, head), acceptable(h), `seed ${seed}: ${JSON.stringify(head)}`)
    })
    await alive()
  })

  it('names the version it speaks in a 426 to another version', async () => {
    const a = await exchange(route, headOf({ ...VALID, 'sec-websocket-version': ['8'] }))
    expect(a.status).toBe(426)
    expect(a.head.toLowerCase()).toContain('sec-websocket-version: 13')
    expect(JSON.parse(a.body)).toMatchObject({ error: { code: 'protocol_error' } })
  })
})
