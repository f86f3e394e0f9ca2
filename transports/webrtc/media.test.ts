/**
 * WebRTC media and events, werift to werift over loopback (the fast CI test): a werift terminal
 * and WebSocket terminals in one room. Opus goes up untouched with its level from the RTP
 * audio-level extension; the room's mixed stream comes down as one continuous RTP stream across
 * source switches, mixes and silences; events and control messages use the data channel.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { joinPcm, PcmSink, tonePower, ToneTalker } from '../../core/test/audio.js'
import { uplink } from '../../core/test/helpers.js'
import { startWebRtcEngine, type WebRtcEngine } from './test/engine.js'
import { WeriftTerminal } from './test/weriftTerminal.js'
import { WsTerminal } from './test/wsTerminal.js'

let t: WebRtcEngine
const open: Array<{ close(): unknown }> = []

beforeEach(async () => {
  t = await startWebRtcEngine()
})
afterEach(async () => {
  for (const c of open.splice(0)) await c.close()
  await t.stop()
})

const webrtc = async (clientId: string, opts: Parameters<typeof WeriftTerminal.connect>[3] = {}) => {
  const terminal = await WeriftTerminal.connect(t.port, await t.token(clientId), t.ca, opts)
  open.push(terminal)
  return terminal
}
const ws = async (clientId: string, mode: 'forward' | 'mixed' = 'forward') => {
  const terminal = await WsTerminal.connect(t.port, await t.token(clientId), t.ca, mode)
  open.push(terminal)
  return terminal
}

describe('webrtc media, werift to werift', () => {
  it('opens a mixed-mode session on the data channel and carries Opus both ways, byte for byte', async () => {
    t.seed.addClient('peer', 'lobby')
    t.seed.addClient('dev', 'lobby')
    const dev = await ws('dev')
    await dev.event('session')
    const peer = await webrtc('peer')
    const session = await peer.event('session')
    expect(session).toMatchObject({ protocol: 1, clientId: 'peer', room: 'lobby', sourceId: 2, audioMode: 'mixed' })
    expect(session.participants).toEqual([{ id: 'dev', kind: 'terminal', sourceId: 1, name: null }])
    expect(peer.location).toBe(`/v1/webrtc/peers/${peer.peerId}`)
    expect(peer.peerId).toMatch(/^wrp_[0-9A-Za-z]{16}$/)
    await dev.event('participant.joined', (e) => e.participant.id === 'peer')
    expect(t.engine.host.presence.get(t.seed.workspaceId, 'peer')).toMatchObject({ transport: 'webrtc', room: 'lobby' })

    // Up: the RTP payload is the Opus packet, untouched; V|level from the extension.
    const opus = Uint8Array.from({ length: 120 }, (_, i) => (i * 13 + 5) & 0xff)
    await peer.sendOpus(opus, 0x80 | 17)
    const up = await dev.frames.next()
    expect(up).toMatchObject({ levelByte: 0x80 | 17, sourceId: 2, seq: 0 })
    expect([...up.opus]).toEqual([...opus])

    // Down: the device's packets arrive as RTP, payload untouched, its level in the extension.
    const tone = new ToneTalker(440)
    const frames = Array.from({ length: 5 }, () => tone.nextUplink())
    for (const frame of frames) dev.sendAudio(frame)
    await peer.packets.next(() => peer.packets.items.length >= 5)
    const got = peer.packets.items
    expect(got.map((p) => [...p.payload])).toEqual(frames.map((f) => [...f.subarray(1)]))
    expect(got.map((p) => p.levelByte)).toEqual(frames.map((f) => f[0]))
    expect(new Set(got.map((p) => p.ssrc)).size).toBe(1)
    expect(got.map((p) => (p.sequenceNumber - got[0]!.sequenceNumber) & 0xffff)).toEqual([0, 1, 2, 3, 4])
    expect(got.map((p) => (p.timestamp - got[0]!.timestamp) >>> 0)).toEqual([0, 960, 1920, 2880, 3840])
    expect(got[0]!.marker).toBe(true)
  })

  it('derives the uplink V|level byte: V needs the extension V bit and ≤ 50 −dBov; no extension means 0x9e', async () => {
    t.seed.addClient('peer', 'lobby')
    t.seed.addClient('plain', 'lobby')
    t.seed.addClient('dev', 'lobby')
    const dev = await ws('dev')
    await dev.event('session')
    const peer = await webrtc('peer')
    await peer.event('session')
    // Chromium marks every non-DTX packet with V, silence included.
    await peer.sendOpus(Uint8Array.of(0x78, 1), 0x80 | 127)
    await peer.sendOpus(Uint8Array.of(0x78, 2), 0x80 | 51)
    await peer.sendOpus(Uint8Array.of(0x78, 3), 0x80 | 50)
    await peer.sendOpus(Uint8Array.of(0x78, 4), 0x00 | 10)
    await dev.frames.next(() => dev.frames.items.length >= 4)
    expect(dev.frames.items.map((f) => f.levelByte)).toEqual([127, 51, 0x80 | 50, 10])

    const plain = await webrtc('plain', { audioLevel: false, format: 'json' })
    await plain.event('session')
    await plain.sendOpus(Uint8Array.of(0x78, 9))
    const frame = await dev.frames.next((f) => f.opus[1] === 9)
    expect(frame.levelByte).toBe(0x9e)
  })

  it('keeps one continuous stream across a source switch and a server mix: one SSRC, +1 sequence, 20 ms steps', async () => {
    for (const id of ['peer', 'a', 'b']) t.seed.addClient(id, 'lobby')
    const a = await ws('a')
    const b = await ws('b')
    const peer = await webrtc('peer')
    await peer.event('session')
    await a.event('participant.joined', (e) => e.participant.id === 'peer')
    await b.event('participant.joined', (e) => e.participant.id === 'peer')
    const sent = new Map<string, string>()
    const talker = (terminal: WsTerminal, name: string, hz: number) => {
      const tone = new ToneTalker(hz)
      const timer = setInterval(() => {
        const frame = tone.nextUplink()
        sent.set(Buffer.from(frame.subarray(1)).toString('hex'), name)
        terminal.sendAudio(frame)
      }, 20)
      return () => clearInterval(timer)
    }
    const count = (n: number) => peer.packets.next(() => peer.packets.items.length >= n, 15_000, `${n} packets`)

    const stopA = talker(a, 'a', 440) // a alone: forwarded untouched
    await count(25)
    const stopB = talker(b, 'b', 1000) // both: a server mix
    await count(75)
    stopA() // b alone: forwarded untouched
    await count(125)
    stopB()

    const packets = peer.packets.items
    expect(new Set(packets.map((p) => p.ssrc)).size).toBe(1)
    for (let i = 1; i < packets.length; i++) {
      expect((packets[i]!.sequenceNumber - packets[i - 1]!.sequenceNumber) & 0xffff).toBe(1)
      const step = (packets[i]!.timestamp - packets[i - 1]!.timestamp) >>> 0
      // 20 ms per packet; only a stall of the talkers' timers beyond the tolerance may restart the timeline (marked).
      if (step !== 960) expect(packets[i]!.marker && step > 960).toBe(true)
    }
    // Whose packets: a's bytes, then mixes (nobody's bytes, both tones), then b's bytes — in that order.
    const origin = packets.map((p) => sent.get(p.payload.toString('hex')) ?? 'mix')
    const runs = origin.filter((o, i) => i === 0 || o !== origin[i - 1])
    expect(runs).toEqual(['a', 'mix', 'b'])
    const sink = new PcmSink()
    const pcm = packets.map((p) => sink.decode(p.payload))
    const mixed = joinPcm(pcm.filter((_, i) => origin[i] === 'mix').slice(5))
    expect(tonePower(mixed, 440)).toBeGreaterThan(tonePower(mixed, 2500) * 100)
    expect(tonePower(mixed, 1000)).toBeGreaterThan(tonePower(mixed, 2500) * 100)
  })

  it('mirrors a listen-only or talk-only offer in its answer', async () => {
    for (const id of ['listener', 'talker', 'dev']) t.seed.addClient(id, 'lobby')
    const dev = await ws('dev')
    await dev.event('session')
    const listener = await webrtc('listener', { direction: 'recvonly' })
    expect(listener.response.text).toContain('a=sendonly')
    await listener.event('session')
    const talker = await webrtc('talker', { direction: 'sendonly' })
    expect(talker.response.text).toContain('a=recvonly')
    await talker.event('session')
    await talker.sendOpus(Uint8Array.of(0x78, 77))
    expect((await dev.frames.next((f) => f.opus[1] === 77)).sourceId).toBe(3)
    const tone = new ToneTalker(440)
    dev.sendAudio(tone.nextUplink())
    await listener.packets.next()
  })

  it('answers control messages on the data channel like WebSocket, and refuses forward mode', async () => {
    t.seed.addClient('peer', 'lobby')
    const peer = await webrtc('peer')
    await peer.event('session')
    peer.send({ type: 'ping', id: 7 })
    expect(await peer.event('pong')).toMatchObject({ id: 7 })
    peer.send({ type: 'audio.mode', audioMode: 'forward', id: 'm1' })
    expect(await peer.event('error')).toEqual({
      type: 'error',
      code: 'validation_failed',
      message: 'a WebRTC peer receives the mixed stream only ("audioMode" must be "mixed")',
      id: 'm1',
    })
    peer.send({ type: 'audio.mode', audioMode: 'mixed' })
    expect(await peer.event('audio.mode')).toEqual({ type: 'audio.mode', audioMode: 'mixed' })
    peer.send({ type: 'hello', id: 3 })
    expect(await peer.event('error', (e) => e.id === 3)).toMatchObject({ code: 'validation_failed' })
    expect(t.engine.host.terminals.session(t.seed.workspaceId, 'peer')?.audioMode).toBe('mixed')
  })

  it.each([
    ['not JSON', 'not json', 'protocol_error'],
    ['binary', Buffer.from([1, 2, 3]), 'protocol_error'],
    ['over 4096 bytes', JSON.stringify({ type: 'ping', pad: 'x'.repeat(5000) }), 'frame_too_large'],
  ])('closes the session on a %s control message: session.closing, then the channel closes', async (_what, message, code) => {
    t.seed.addClient('peer', 'lobby')
    t.seed.addClient('dev', 'lobby')
    const dev = await ws('dev')
    const peer = await webrtc('peer')
    await peer.event('session')
    await dev.event('participant.joined', (e) => e.participant.id === 'peer')
    if (typeof message === 'string') peer.send(message)
    else peer.channel.send(message)
    expect(await peer.event('session.closing')).toMatchObject({ code })
    expect(await peer.ended).toMatch(/closed/)
    await dev.event('participant.left', (e) => e.participant.id === 'peer')
    expect(t.transport().peerCount).toBe(0)
    // Only the offender went: the device is still connected.
    dev.sendAudio(uplink([1]))
    expect(t.engine.host.terminals.session(t.seed.workspaceId, 'dev')).toBeDefined()
  })

  it('closes a terminal that floods control messages with rate_limited', async () => {
    t.seed.addClient('peer', 'lobby')
    const peer = await webrtc('peer')
    await peer.event('session')
    for (let i = 0; i < 60; i++) peer.send({ type: 'ping', id: i })
    expect(await peer.event('session.closing')).toMatchObject({ code: 'rate_limited' })
    await peer.ended
  })
})
