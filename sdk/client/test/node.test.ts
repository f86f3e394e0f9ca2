/**
 * @hark/client in Node over WebSocket against a real engine: a bot exchanges audio with an MQTT
 * device (mqtt.js) in one room, as 16 kHz PCM both ways; the session's typed events, state and
 * control messages; the close reasons as typed errors, which are not retried; a dropped
 * connection retried until the restarted engine takes it back; an expired token replaced through
 * `refreshToken`. Waits are on events, never sleeps.
 */
import mqtt, { type MqttClient } from 'mqtt'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  ClientDeletedError,
  connect,
  ConnectionLostError,
  RateLimitedError,
  SessionReplacedError,
  TokenExpiredError,
  TokenRevokedError,
  type HarkClientError,
  type ReconnectingInfo,
  type Session,
  type ServerEventOf,
  type ServerEventType,
} from '@hark/client'
import { joinPcm, PcmSink, tonePower, ToneTalker } from '../../../core/test/audio.js'
import { Inbox } from '../../../core/test/helpers.js'
import { startClientEngine, type ClientEngine } from './clientEngine.js'

let t: ClientEngine
const open: Array<Session | MqttClient> = []

beforeAll(async () => {
  t = await startClientEngine()
})

afterAll(async () => {
  for (const o of open) await ('endAsync' in o ? o.endAsync() : o.close()).catch(() => undefined)
  await t?.stop()
})

/** A bot session of `clientId` (created in `room`) with every event recorded. */
const bot = async (
  clientId: string,
  room: string | null,
  options: { token?: string; reconnect?: boolean; refreshToken?: () => Promise<string>; url?: string } = {},
) => {
  if (!options.token) t.seed.addClient(clientId, room)
  const events = new Inbox<{ type: string }>()
  const closed = new Inbox<HarkClientError | null>()
  const reconnecting: ReconnectingInfo[] = []
  const session = await connect({
    url: options.url ?? t.direct,
    token: options.token ?? (await t.token(clientId)),
    tls: { ca: t.ca },
    reconnect: options.reconnect ?? true,
    refreshToken: options.refreshToken,
  })
  open.push(session)
  session.on('event', (e) => events.push(e))
  session.on('closed', (e) => closed.push(e))
  session.on('reconnecting', (info) => reconnecting.push(info))
  const reconnected = new Inbox<ServerEventOf<'session'>>()
  session.on('reconnected', (e) => reconnected.push(e))
  const event = <K extends ServerEventType>(type: K, test: (e: ServerEventOf<K>) => boolean = () => true) =>
    events.next((e) => e.type === type && test(e as ServerEventOf<K>), 10_000, `${clientId}: ${type}`) as Promise<ServerEventOf<K>>
  return {
    session,
    event,
    reconnecting,
    closed: () => closed.next(() => true, 10_000, `${clientId} closed`),
    reconnected: () => reconnected.next(() => true, 20_000, `${clientId} reconnected`),
  }
}

/** Talk `hz` for as long as the returned function is not called: one 20 ms frame every 20 ms. */
const talk = (send: (pcm: Int16Array, tone: ToneTalker) => void, hz: number) => {
  const tone = new ToneTalker(hz)
  const timer = setInterval(() => send(tone.nextPcm(), tone), 20)
  return () => clearInterval(timer)
}

describe('a bot built with @hark/client and an MQTT device in one room', () => {
  it('hear each other: the bot sends PCM the device decodes, and decodes the device’s Opus as PCM', async () => {
    t.seed.addClient('device', 'lobby')
    const device = await mqtt.connectAsync(`mqtt://127.0.0.1:${t.engine.ports.mqtt}`, {
      clientId: 'device',
      username: 'device',
      password: t.devicePassword('device'),
      reconnectPeriod: 0,
    })
    open.push(device)
    const deviceAudio = new Inbox<Buffer>()
    device.on('message', (topic, payload) => topic === 'hark/device/down/audio' && deviceAudio.push(payload))

    const b = await bot('bot', 'lobby')
    expect(b.session.state).toBe('connected')
    expect(b.session.room).toBe('lobby')
    expect(b.session.clientId).toBe('bot')
    expect(b.session.sessionId).toMatch(/^ses_/)
    expect([...b.session.participants.values()]).toMatchObject([{ id: 'device', kind: 'terminal' }])
    const deviceSourceId = b.session.participants.get('device')!.sourceId

    // Bot → device: 440 Hz as PCM, encoded by the SDK (@evan/opus), level byte measured.
    const stopBot = talk((pcm) => b.session.sendPcm(pcm), 440)
    const heard: Int16Array[] = []
    try {
      const sink = new PcmSink()
      await deviceAudio.next(
        (frame) => {
          if (frame.readUInt16BE(2) === b.session.sourceId) heard.push(sink.decode(frame.subarray(6)))
          return heard.length >= 40
        },
        15_000,
        '40 frames of the bot at the device',
      )
    } finally {
      stopBot()
    }
    const fromBot = joinPcm(heard.slice(10))
    expect(tonePower(fromBot, 440)).toBeGreaterThan(tonePower(fromBot, 2500) * 100)

    // Device → bot: 1000 Hz Opus frames on up/audio; the bot's `pcm` event decodes them per source.
    const pcm: Int16Array[] = []
    const decoded = new Inbox<number>()
    b.session.on('pcm', (frame, sourceId) => {
      if (sourceId !== deviceSourceId) return
      pcm.push(frame)
      decoded.push(pcm.length)
    })
    const opus: number[] = []
    b.session.on('audio', (_packet, sourceId, seq) => sourceId === deviceSourceId && opus.push(seq))
    const stopDevice = talk((_pcm, tone) => void device.publish('hark/device/up/audio', Buffer.from(tone.nextUplink())), 1000)
    try {
      await b.event('speaking.started', (e) => e.participantId === 'device')
      expect(b.session.speaking.has('device')).toBe(true)
      await decoded.next((n) => n >= 40, 15_000, '40 decoded frames of the device')
    } finally {
      stopDevice()
    }
    const fromDevice = joinPcm(pcm.slice(10))
    expect(fromDevice.length).toBeGreaterThan(320 * 20)
    expect(tonePower(fromDevice, 1000)).toBeGreaterThan(tonePower(fromDevice, 2500) * 100)
    // Frames of one source arrive in order, numbered +1 each.
    expect(opus.slice(1).every((seq, i) => seq === ((opus[i]! + 1) & 0xffff))).toBe(true)

    await device.endAsync()
    const left = await b.event('participant.left', (e) => e.participant.id === 'device')
    expect(left.room).toBe('lobby')
    expect(b.session.participants.has('device')).toBe(false)
  })

  it('follows its room, answers ping and audio.mode, and is refused a mode change with a typed error over WebRTC only', async () => {
    const b = await bot('mover', 'r1')
    expect(await b.session.ping()).toBeGreaterThanOrEqual(0)
    expect(await b.session.setAudioMode('mixed')).toBe('mixed')
    expect(b.session.audioMode).toBe('mixed')
    await t.seed.moveClient('mover', 'r2')
    const moved = await b.event('room.changed')
    expect(moved).toMatchObject({ from: 'r1', to: 'r2' })
    expect(b.session.room).toBe('r2')
    expect(b.session.sourceId).toBe(moved.sourceId)
  })
})

describe('close reasons: typed, and never retried when they must not be', () => {
  it('a revoked token: TokenRevokedError (4003), closed, no reconnection', async () => {
    t.seed.addClient('revoked', 'lobby')
    const issued = await t.issue('revoked')
    const b = await bot('revoked', 'lobby', { token: issued.token })
    t.revoke(issued.jti)
    const error = await b.closed()
    expect(error).toBeInstanceOf(TokenRevokedError)
    expect(error).toMatchObject({ code: 'token_revoked', message: 'token revoked', closeCode: 4003, retriable: false })
    expect(b.session.state).toBe('closed')
    expect(b.session.error).toBe(error)
    expect(b.reconnecting).toEqual([])
    expect(b.session.sendPcm(new Int16Array(320))).toBe(false)
    await expect(b.session.ping()).rejects.toMatchObject({ code: 'not_connected' })
  })

  it('a deleted client: ClientDeletedError (4004); a newer session of the same client: SessionReplacedError (4005) for the older', async () => {
    const deleted = await bot('deleted', 'lobby')
    await t.seed.deleteClient('deleted')
    expect(await deleted.closed()).toMatchObject({ name: 'ClientDeletedError', code: 'client_deleted', closeCode: 4004 })
    expect(deleted.session.error).toBeInstanceOf(ClientDeletedError)

    const older = await bot('twice', 'lobby')
    const newer = await connect({ url: t.direct, token: await t.token('twice'), tls: { ca: t.ca } })
    open.push(newer)
    const error = await older.closed()
    expect(error).toBeInstanceOf(SessionReplacedError)
    expect(error).toMatchObject({ code: 'session_replaced', closeCode: 4005 })
    expect(older.reconnecting).toEqual([])
    expect(newer.state).toBe('connected')
  })

  it('too many control messages: RateLimitedError (close 4029), with the server’s message', async () => {
    const b = await bot('flooder', 'lobby', { reconnect: false })
    const pings = Array.from({ length: 60 }, () => b.session.ping().catch((e: unknown) => e))
    const error = await b.closed()
    expect(error).toBeInstanceOf(RateLimitedError)
    expect(error).toMatchObject({ code: 'rate_limited', closeCode: 4029, retriable: true })
    expect(error!.message).toMatch(/control messages per second/)
    expect((await Promise.all(pings)).some((p) => p instanceof RateLimitedError)).toBe(true)
  })

  it('an expired token: the session calls refreshToken and is back in its room with the new one', async () => {
    t.seed.addClient('short', 'lobby')
    const refreshed = new Inbox<string>()
    const b = await bot('short', 'lobby', {
      // Long enough to connect with on a loaded machine; it expires while connected.
      token: await t.token('short', 3),
      refreshToken: async () => {
        const token = await t.token('short', 3600)
        refreshed.push(token)
        return token
      },
    })
    const first = b.session.sessionId
    const again = await b.reconnected()
    await refreshed.next()
    expect(b.reconnecting[0]!.error).toBeInstanceOf(TokenExpiredError)
    expect(b.reconnecting[0]!.error).toMatchObject({ closeCode: 4002 })
    expect(again).toMatchObject({ clientId: 'short', room: 'lobby' })
    expect(again.sessionId).not.toBe(first)
    expect(b.session.state).toBe('connected')
  })
})

describe('an engine restart', () => {
  it('closes the session with server_shutting_down; the bot retries with backoff and is back in its room', async () => {
    const b = await bot('survivor', 'studio', { url: t.url })
    const first = b.session.sessionId
    await t.restart()
    const session = await b.reconnected()
    expect(session).toMatchObject({ clientId: 'survivor', room: 'studio' })
    expect(session.sessionId).not.toBe(first)
    // session.closing server_shutting_down (close 1001); or, when the engine's socket is gone before
    // its last bytes arrive, a lost connection: retried all the same.
    const why = b.reconnecting[0]!.error
    if (why.code === 'connection_lost') expect(why).toBeInstanceOf(ConnectionLostError)
    else expect(why).toMatchObject({ name: 'ServerUnavailableError', code: 'server_shutting_down', closeCode: 1001 })
    // Attempts while the engine was down failed on the connection, and were retried.
    for (const r of b.reconnecting) expect(r.delayMs).toBeGreaterThan(0)
    expect(b.session.state).toBe('connected')
    expect(await b.session.ping()).toBeGreaterThanOrEqual(0)
  })
})
