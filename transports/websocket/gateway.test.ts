import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { parseDownlink } from '../../core/dataplane/frame.js'
import { audioDrops } from '../../core/dataplane/drops.js'
import type { Engine } from '../../core/engine.js'
import type { EngineConfig } from '../../core/index.js'
import { ManualClock } from '../../core/clock.js'
import { readFileSync } from 'node:fs'
import { connect as netConnect } from 'node:net'
import type { Transport } from '../../core/transport.js'
import { runCli, seedWorkspace, startTestEngine, uplink } from '../../core/test/helpers.js'
import { defineWebSocketTransport, websocketTransport } from './index.js'
import { TestTerminal } from './test/terminalClient.js'
import { joinPcm, PcmSink, tonePower, ToneTalker } from '../../core/test/audio.js'
import { MIXED_SOURCE_ID } from '../../core/dataplane/frame.js'

let t: Awaited<ReturnType<typeof startTestEngine>>
let engine: Engine
let seed: ReturnType<typeof seedWorkspace>

const start = async (config: EngineConfig = {}, clock?: ManualClock) => {
  t = await startTestEngine({ extensions: [websocketTransport], ...config }, clock ? { clock } : {})
  engine = t.engine
  seed = seedWorkspace(engine)
}

const tokenFor = async (clientId: string, ttl: number | null = null) =>
  (await engine.host.security.tokens.issue(seed.workspaceId, clientId, ttl)).token

const connect = async (clientId: string, query: Record<string, string> = {}) => {
  const token = await tokenFor(clientId)
  return TestTerminal.connect(engine.ports.gateway!, { token, ...query }, engine.host.tls.cert)
}

const moveClient = (clientId: string, room: string | null) => seed.moveClient(clientId, room)

afterEach(async () => {
  await t?.stop()
})

describe('websocket gateway: admission', () => {
  beforeEach(() => start())

  it('sends session first and routes audio between the members of one room, byte for byte', async () => {
    seed.addClient('a', 'lobby')
    seed.addClient('b', 'lobby')
    seed.addClient('c', 'other')
    const a = await connect('a')
    const b = await connect('b')
    const c = await connect('c')
    const session = await a.events.next()
    expect(session).toMatchObject({ type: 'session', protocol: 1, clientId: 'a', room: 'lobby', sourceId: 1, audioMode: 'forward' })
    expect(session).toMatchObject({ audio: { codec: 'opus', sampleRate: 16000, channels: 1, frameMs: [20, 60], maxOpusBytes: 1500 } })
    expect(await b.event('session')).toMatchObject({ room: 'lobby', sourceId: 2, participants: [{ id: 'a', sourceId: 1, kind: 'terminal' }] })
    expect(await a.event('participant.joined')).toMatchObject({ room: 'lobby', participant: { id: 'b', sourceId: 2 } })
    await c.event('session')

    const opus = Uint8Array.from({ length: 97 }, (_, i) => (i * 7 + 3) & 0xff)
    a.sendAudio(uplink(opus, 0x80 | 30))
    b.sendAudio(uplink([1, 2, 3], 0x00 | 90))
    const atB = parseDownlink(await b.frames.next())!
    expect(atB).toMatchObject({ kind: 1, levelByte: 0x80 | 30, sourceId: 1, seq: 0 })
    expect([...atB.opus]).toEqual([...opus])
    const atA = parseDownlink(await a.frames.next())!
    expect(atA).toMatchObject({ levelByte: 90, sourceId: 2, seq: 0 })
    expect([...atA.opus]).toEqual([1, 2, 3])
    a.sendAudio(uplink([9]))
    expect(parseDownlink(await b.frames.next((f) => parseDownlink(f)!.seq === 1))!.opus[0]).toBe(9)

    // c is in another room: a ping round trip proves everything sent before it has arrived.
    c.send({ type: 'ping', id: 'x' })
    expect(await c.event('pong')).toMatchObject({ id: 'x' })
    expect(c.frames.items).toHaveLength(0)
    expect(a.order[0]).toBe('session')
    expect(engine.host.presence.get(seed.workspaceId, 'a')).toMatchObject({ transport: 'websocket', room: 'lobby' })
  })

  it('admits a hundred terminals in a row, each one hearing its session (regression: uWS cork on upgrade)', async () => {
    const terminals: TestTerminal[] = []
    const ended: unknown[] = []
    engine.host.terminals.on('session.ended', (e) => ended.push({ id: e.session.clientId, reason: String(e.reason) }))
    for (let i = 0; i < 100; i++) {
      seed.addClient(`t${i}`, `room-${i % 10}`)
      const terminal = await connect(`t${i}`)
      expect(await terminal.event('session')).toMatchObject({ clientId: `t${i}`, room: `room-${i % 10}` })
      terminals.push(terminal)
    }
    // Every terminal is still online: none was closed under it (uWS once closed one with 1006
    // just after its `session`, when the session opened inside the upgrade's cork).
    const online = new Set(engine.host.presence.list(seed.workspaceId).map((e) => e.clientId))
    const missing = terminals.map((t, i) => ({ id: `t${i}`, order: t.order, open: t.ws.readyState, error: t.error?.message })).filter((t) => !online.has(t.id))
    for (const m of missing) Object.assign(m, { closed: await terminals[Number(m.id.slice(1))]!.closed })
    expect({ missing, ended }).toEqual({ missing: [], ended: [] })
    for (const terminal of terminals) terminal.close()
  })

  it('refuses bad, foreign, deleted-client and revoked tokens with 401 and the envelope, before any upgrade', async () => {
    const port = engine.ports.gateway!
    const ca = engine.host.tls.cert
    seed.addClient('a', 'lobby')
    expect(await TestTerminal.refused(port, {}, ca)).toEqual({
      status: 401,
      body: { error: { message: 'missing token query parameter', code: 'invalid_token' } },
    })
    expect(await TestTerminal.refused(port, { token: 'not.a.jwt' }, ca)).toMatchObject({ status: 401, body: { error: { code: 'invalid_token' } } })

    // A token of another engine's workspace is foreign here.
    const other = await startTestEngine()
    const otherSeed = seedWorkspace(other.engine)
    otherSeed.addClient('a', 'lobby')
    const foreign = (await other.engine.host.security.tokens.issue(otherSeed.workspaceId, 'a', null)).token
    await other.stop()
    expect(await TestTerminal.refused(port, { token: foreign }, ca)).toMatchObject({ status: 401, body: { error: { code: 'invalid_token' } } })

    const revoked = await engine.host.security.tokens.issue(seed.workspaceId, 'a', null)
    engine.host.security.tokens.revoke(seed.workspaceId, revoked.jti)
    expect(await TestTerminal.refused(port, { token: revoked.token }, ca)).toMatchObject({ status: 401, body: { error: { code: 'token_revoked' } } })

    seed.addClient('gone', 'lobby')
    const orphan = await tokenFor('gone')
    engine.host.storage.transaction(() => engine.host.storage.clients.delete(seed.workspaceId, 'gone'))
    expect(await TestTerminal.refused(port, { token: orphan }, ca)).toMatchObject({ status: 401, body: { error: { code: 'client_not_found' } } })

    expect(await TestTerminal.refused(port, { token: await tokenFor('a'), mode: 'stereo' }, ca)).toMatchObject({
      status: 400,
      body: { error: { code: 'validation_failed' } },
    })
    expect(engine.host.presence.list(seed.workspaceId)).toEqual([])
  })

  it('answers other paths with 404 and a plain GET of /v1/connect with 426, both with the envelope', async () => {
    const base = `https://127.0.0.1:${engine.ports.gateway}`
    const { request } = await import('node:https')
    const get = (path: string) =>
      new Promise<{ status: number; body: unknown }>((resolve, reject) => {
        request(base + path, { ca: engine.host.tls.cert }, (res) => {
          let body = ''
          res.on('data', (d: Buffer) => (body += d))
          res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(body) }))
        })
          .on('error', reject)
          .end()
      })
    expect(await get('/nope')).toEqual({ status: 404, body: { error: { message: 'no route GET /nope', code: 'not_found' } } })
    expect(await get('/v1/connect?token=x')).toMatchObject({ status: 426, body: { error: { code: 'protocol_error' } } })
    expect(await TestTerminal.refused(engine.ports.gateway!, { token: 'x' }, engine.host.tls.cert, '/v2/connect')).toMatchObject({ status: 404 })
  })
})

describe('websocket gateway: live control changes', () => {
  // The engine's clock: expiry and change polling move only when a test advances it. A whole
  // second, as token times are (exp = iat + ttl, in seconds).
  let clock: ManualClock
  beforeEach(() => start({}, (clock = new ManualClock(Math.floor(Date.now() / 1000) * 1000))))

  it('moves a live client on a mapping change, and its audio follows', async () => {
    for (const [id, room] of [['mover', 'r1'], ['x', 'r1'], ['y', 'r2']] as const) seed.addClient(id, room)
    const mover = await connect('mover')
    const x = await connect('x')
    const y = await connect('y')
    await mover.event('participant.joined', (e) => e.participant.id === 'x')
    moveClient('mover', 'r2')
    expect(await mover.event('room.changed')).toMatchObject({ from: 'r1', to: 'r2', participants: [{ id: 'y' }] })
    expect(await x.event('participant.left')).toMatchObject({ room: 'r1', participant: { id: 'mover' } })
    const joined = await y.event('participant.joined', (e) => e.participant.id === 'mover')
    mover.sendAudio(uplink([42]))
    const frame = parseDownlink(await y.frames.next())!
    expect(frame.sourceId).toBe(joined.participant.sourceId)
    expect([...frame.opus]).toEqual([42])
    x.send({ type: 'ping' })
    await x.event('pong')
    expect(x.frames.items).toHaveLength(0)
  })

  it('disconnects on token revocation (4003), deletion (4004) and replacement (4005), saying session.closing first', async () => {
    for (const id of ['rev', 'del', 'dup', 'observer']) seed.addClient(id, 'lobby')
    const observer = await connect('observer')
    await observer.event('session')
    const revToken = await engine.host.security.tokens.issue(seed.workspaceId, 'rev', null)
    const rev = await TestTerminal.connect(engine.ports.gateway!, { token: revToken.token }, engine.host.tls.cert)
    const del = await connect('del')
    const older = await connect('dup')
    await Promise.all([rev.event('session'), del.event('session'), older.event('session')])

    engine.host.security.tokens.revoke(seed.workspaceId, revToken.jti)
    expect(await rev.closed).toEqual({ code: 4003, reason: 'token_revoked' })
    expect(rev.events.items.at(-1)).toMatchObject({ type: 'session.closing', code: 'token_revoked' })

    seed.deleteClient('del')
    expect(await del.closed).toEqual({ code: 4004, reason: 'client_deleted' })
    expect(del.events.items.at(-1)).toMatchObject({ type: 'session.closing', code: 'client_deleted' })

    const newer = await connect('dup')
    expect(await older.closed).toEqual({ code: 4005, reason: 'session_replaced' })
    expect(older.events.items.at(-1)).toMatchObject({ type: 'session.closing', code: 'session_replaced' })
    expect(await newer.event('session')).toMatchObject({ clientId: 'dup', room: 'lobby' })
    // Others see the replaced session leave, then the newer one join.
    const aboutDup = () => observer.events.items.filter((e) => 'participant' in e && e.participant.id === 'dup').map((e) => e.type)
    await observer.events.next(() => aboutDup().length >= 3)
    expect(aboutDup()).toEqual(['participant.joined', 'participant.left', 'participant.joined'])
    for (const id of ['rev', 'del']) expect(engine.host.presence.isOnline(seed.workspaceId, id)).toBe(false)
    expect(engine.host.presence.get(seed.workspaceId, 'dup')?.transport).toBe('websocket')
  })

  it('disconnects a terminal whose token the CLI revokes from another process', async () => {
    seed.addClient('a', 'lobby')
    const issued = await engine.host.security.tokens.issue(seed.workspaceId, 'a', null)
    const a = await TestTerminal.connect(engine.ports.gateway!, { token: issued.token }, engine.host.tls.cert)
    await a.event('session')
    const r = await runCli(['token', 'revoke', issued.jti, '--workspace', seed.workspaceId, '--data', t.dir])
    expect(r.code).toBe(0)
    // The engine hears another process's change at its next poll (storage.changePollMs, 50 ms here).
    expect(engine.host.presence.isOnline(seed.workspaceId, 'a')).toBe(true)
    await clock.advanceAsync(50)
    expect(await a.closed).toEqual({ code: 4003, reason: 'token_revoked' })
  })

  it('closes with 4002 token_expired when the token expires during the session', async () => {
    seed.addClient('brief', 'lobby')
    const token = await tokenFor('brief', 2)
    const brief = await TestTerminal.connect(engine.ports.gateway!, { token }, engine.host.tls.cert)
    await brief.event('session')
    clock.advance(1999)
    expect(engine.host.presence.isOnline(seed.workspaceId, 'brief')).toBe(true)
    clock.advance(1)
    expect(engine.host.presence.isOnline(seed.workspaceId, 'brief')).toBe(false)
    expect(await brief.closed).toEqual({ code: 4002, reason: 'token_expired' })
    expect(brief.events.items.at(-1)).toMatchObject({ type: 'session.closing', code: 'token_expired' })
  })

  it('listens with 8 sockets on its port (8 × uWS\'s backlog of 512 for a fleet that reconnects at once)', () => {
    // The kernel's own list: sockets in LISTEN state (0A) on the gateway's port.
    const port = engine.ports.gateway!.toString(16).toUpperCase().padStart(4, '0')
    const listening = readFileSync('/proc/net/tcp', 'utf8').split('\n').filter((l) => {
      const [, local, , state] = l.trim().split(/\s+/)
      return local?.endsWith(`:${port}`) && state === '0A'
    })
    expect(listening).toHaveLength(8)
  })

  it('refuses new connections once it stops accepting, while the terminals it has go on', async () => {
    seed.addClient('a', 'lobby')
    seed.addClient('b', 'lobby')
    const a = await connect('a')
    await a.event('session')
    const gateway = engine.host.resolve<Transport>('transport', 'websocket')
    gateway.stopAccepting!()
    const refused = await new Promise<string>((resolve) => {
      const s = netConnect({ host: '127.0.0.1', port: engine.ports.gateway! })
      s.once('connect', () => (s.destroy(), resolve('accepted')))
      s.once('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? e.message))
    })
    expect(refused).toBe('ECONNREFUSED')
    // The terminal already in still hears its room (a REST-side change reaches it).
    moveClient('a', 'hall')
    expect(await a.event('room.changed')).toMatchObject({ from: 'lobby', to: 'hall' })
  })

  it('says session.closing server_shutting_down and closes with 1001 when the engine stops', async () => {
    seed.addClient('a', 'lobby')
    const a = await connect('a')
    await a.event('session')
    await engine.stop()
    expect(await a.closed).toEqual({ code: 1001, reason: 'server_shutting_down' })
    expect(a.events.items.at(-1)).toMatchObject({ type: 'session.closing', code: 'server_shutting_down' })
  })
})

describe('websocket gateway: bad input closes only the sender', () => {
  beforeEach(() => start())

  const room = async () => {
    seed.addClient('bad', 'lobby')
    seed.addClient('good', 'lobby')
    const good = await connect('good')
    await good.event('session')
    return good
  }

  const stillWorks = async (good: TestTerminal, other: string) => {
    const peer = await connect(other)
    await good.event('participant.joined', (e) => e.participant.id === other)
    // Frames sent before a terminal's `session` event are dropped (spec/websocket.md): it waits for it.
    await peer.event('session')
    peer.sendAudio(uplink([7, 7]))
    await good.frames.next((f) => parseDownlink(f)!.opus[0] === 7)
    peer.close()
  }

  it.each([
    ['invalid JSON', 1002, 'protocol_error', (b: TestTerminal) => b.sendText('{"type":')],
    ['a JSON value that is not an object', 1002, 'protocol_error', (b: TestTerminal) => b.sendText('[1,2]')],
    ['an object without type', 1002, 'protocol_error', (b: TestTerminal) => b.send({ kind: 'ping' })],
    ['a control message over 4096 bytes', 1009, 'frame_too_large', (b: TestTerminal) => b.send({ type: 'ping', pad: 'x'.repeat(5000) })],
    ['an audio frame over 1501 bytes', 1009, 'frame_too_large', (b: TestTerminal) => b.sendAudio(new Uint8Array(1502).fill(1))],
    ['an audio frame without an Opus packet', 1002, 'protocol_error', (b: TestTerminal) => b.sendAudio(Uint8Array.of(0x80))],
  ] as const)('%s: session.closing, then close %i %s on that socket only', async (_what, code, reason, misbehave) => {
    const good = await room()
    const bad = await connect('bad')
    await bad.event('session')
    misbehave(bad)
    expect(await bad.closed).toEqual({ code, reason })
    expect(bad.events.items.at(-1)).toMatchObject({ type: 'session.closing', code: reason })
    await good.event('participant.left', (e) => e.participant.id === 'bad')
    await stillWorks(good, 'bad')
  })

  it.each([
    ['a message over 16 KiB', (b: TestTerminal) => b.sendAudio(new Uint8Array(20_000))],
    ['a text frame that is not UTF-8', (b: TestTerminal) => b.ws.send(Buffer.from([0x7b, 0xff, 0xfe]), { binary: false })],
  ] as const)('%s: uWS cuts that connection (1006 at the client), the session ends, the room carries on', async (_what, misbehave) => {
    const good = await room()
    const bad = await connect('bad')
    await bad.event('session')
    misbehave(bad)
    expect((await bad.closed).code).toBe(1006)
    await good.event('participant.left', (e) => e.participant.id === 'bad')
    expect(engine.host.presence.isOnline(seed.workspaceId, 'bad')).toBe(false)
    await stillWorks(good, 'bad')
  })

  it('answers unknown types and bad fields with an error event and keeps the connection', async () => {
    const good = await room()
    good.send({ type: 'teleport', id: 7 })
    expect(await good.event('error')).toEqual({ type: 'error', code: 'validation_failed', message: 'unknown message type "teleport"', id: 7 })
    good.send({ type: 'audio.mode', audioMode: 'surround', id: 'm1' })
    expect(await good.event('error', (e) => e.id === 'm1')).toMatchObject({ code: 'validation_failed' })
    good.send({ type: 'ping', id: { nested: true } })
    expect(await good.event('error', (e) => e.code === 'validation_failed' && e.id === null)).toMatchObject({ message: expect.stringContaining('"id"') })
    good.send({ type: 'ping', id: 'p' })
    expect(await good.event('pong')).toMatchObject({ id: 'p', serverTime: expect.any(Number) })
    good.send({ type: 'audio.mode', audioMode: 'mixed' })
    expect(await good.event('audio.mode')).toEqual({ type: 'audio.mode', audioMode: 'mixed' })
  })

  it('closes a socket flooding control messages with 4029', async () => {
    const good = await room()
    const bad = await connect('bad')
    await bad.event('session')
    for (let i = 0; i < 200; i++) bad.send({ type: 'ping', id: i })
    expect(await bad.closed).toEqual({ code: 4029, reason: 'rate_limited' })
    await stillWorks(good, 'bad')
  })
})

describe('websocket gateway: backpressure', () => {
  it('drops audio for a receiver that stops reading, counts it, and keeps the room flowing', async () => {
    await start({
      extensions: [defineWebSocketTransport({ audioFramesPerSecond: 1e9, audioFrameBurst: 1e9 })],
    })
    for (const id of ['talker', 'fast', 'slow']) seed.addClient(id, 'lobby')
    const talker = await connect('talker')
    const fast = await connect('fast')
    const slow = await connect('slow')
    await talker.event('participant.joined', (e) => e.participant.id === 'slow')
    await fast.event('participant.joined', (e) => e.participant.id === 'slow')
    await slow.event('session')
    const socket = (slow.ws as unknown as { _socket: import('node:net').Socket })._socket
    socket.pause()

    const drops = audioDrops(engine.host.metrics)
    const packet = new Uint8Array(1400).fill(5)
    let sent = 0
    // Send in rounds until the server reports drops for the stalled receiver (kernel buffers first).
    while (drops.total('websocket') === 0 && sent < 200_000) {
      // 40 frames of 1.4 kB per round stay under the 64 KiB a receiver may have waiting in one turn.
      for (let i = 0; i < 40; i++) {
        packet[0] = sent & 0xff
        talker.sendAudio(uplink(packet))
        sent++
      }
      await fast.frames.next((f) => f.length > 6 && fast.frames.items.length >= sent)
    }
    expect(drops.total('websocket')).toBeGreaterThan(0)
    // Every frame reached the receiver that reads.
    expect(fast.frames.items).toHaveLength(sent)
    const metrics = await (await fetch(t.url('/metrics'))).text()
    expect(metrics).toMatch(/hark_audio_frames_dropped_total\{transport="websocket",reason="backpressure"\} [1-9]/)

    // The stalled receiver catches up and hears new audio afterwards.
    socket.resume()
    talker.sendAudio(uplink([0xee, 0xee]))
    await slow.frames.next((f) => parseDownlink(f)!.opus[0] === 0xee, 20_000)
  })
})

describe('websocket gateway: mixed mode', () => {
  beforeEach(() => start())

  /** Send one frame per talker every 20 ms (as terminals do) until stopped. */
  const talk = (pairs: ReadonlyArray<[TestTerminal, ToneTalker]>) => {
    const timer = setInterval(() => {
      for (const [terminal, tone] of pairs) terminal.sendAudio(tone.nextUplink())
    }, 20)
    return () => clearInterval(timer)
  }

  it('gives a mixed receiver decodable Opus (source id 0) holding both talkers when two talk at once', async () => {
    for (const id of ['a', 'b', 'listener']) seed.addClient(id, 'lobby')
    const a = await connect('a')
    const b = await connect('b')
    const listener = await connect('listener', { mode: 'mixed' })
    expect(await listener.event('session')).toMatchObject({ audioMode: 'mixed' })
    await a.event('participant.joined', (e) => e.participant.id === 'listener')
    await b.event('participant.joined', (e) => e.participant.id === 'listener')

    const stop = talk([
      [a, new ToneTalker(440)],
      [b, new ToneTalker(1000)],
    ])
    try {
      await listener.frames.next(() => listener.frames.items.filter((f) => parseDownlink(f)!.sourceId === MIXED_SOURCE_ID).length >= 30, 15_000)
    } finally {
      stop()
    }
    const sink = new PcmSink()
    const mixed = listener.frames.items.map((f) => parseDownlink(f)!).filter((d) => d.sourceId === MIXED_SOURCE_ID)
    for (const d of mixed) expect(sink.decode(d.opus)).toHaveLength(320)
    const pcm = joinPcm(sink.frames.slice(10))
    const noise = tonePower(pcm, 2500)
    expect(tonePower(pcm, 440)).toBeGreaterThan(noise * 1000)
    expect(tonePower(pcm, 1000)).toBeGreaterThan(noise * 1000)
    // Forward-mode talkers still get each other's frames, untouched, never a mix.
    expect(a.frames.items.length).toBeGreaterThan(0)
    expect(a.frames.items.every((f) => parseDownlink(f)!.sourceId === 2)).toBe(true)
    const metrics = await (await fetch(t.url('/metrics'))).text()
    expect(metrics).toMatch(/hark_audio_mixer_frames_total\{op="encode"\} [1-9]/)
  })

  it('forwards the only talker untouched to a receiver that switched to mixed with audio.mode', async () => {
    for (const id of ['a', 'listener']) seed.addClient(id, 'lobby')
    const a = await connect('a')
    const listener = await connect('listener')
    await a.event('participant.joined', (e) => e.participant.id === 'listener')
    listener.send({ type: 'audio.mode', audioMode: 'mixed' })
    expect(await listener.event('audio.mode')).toEqual({ type: 'audio.mode', audioMode: 'mixed' })
    const tone = new ToneTalker(440)
    const sent = tone.nextUplink()
    a.sendAudio(sent)
    const got = parseDownlink(await listener.frames.next())!
    expect(got.sourceId).toBe(1)
    expect([...got.opus]).toEqual([...sent.subarray(1)])
    expect(engine.host.terminals.session(seed.workspaceId, 'listener')?.audioMode).toBe('mixed')
  })
})
