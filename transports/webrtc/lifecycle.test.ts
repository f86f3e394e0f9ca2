/**
 * WebRTC peers come and go like other terminals: room switches, revocation, deletion, a newer
 * session of the same client, DELETE of the peer resource, leaving, never connecting, shutdown.
 * Every ending releases the peer's UDP socket and timers: the process's handle counts return to
 * where they were.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { ManualClock } from '../../core/clock.js'
import { startWebRtcEngine, type WebRtcEngine } from './test/engine.js'
import { gatheredOffer, loopbackPeer, postOffer, WeriftTerminal } from './test/weriftTerminal.js'
import { WsTerminal } from './test/wsTerminal.js'
import { httpsRequest } from '../../core/test/https.js'
import { ToneTalker } from '../../core/test/audio.js'

let t: WebRtcEngine | null = null
const open: Array<{ close(): unknown }> = []

afterEach(async () => {
  for (const c of open.splice(0)) await c.close()
  await t?.stop()
  t = null
})

const start = async (config: Parameters<typeof startWebRtcEngine>[0] = {}, options: Parameters<typeof startWebRtcEngine>[2] = {}) => {
  t = await startWebRtcEngine(config, undefined, options)
  return t
}
const webrtc = async (engine: WebRtcEngine, clientId: string, token?: string) => {
  const terminal = await WeriftTerminal.connect(engine.port, token ?? (await engine.token(clientId)), engine.ca)
  open.push(terminal)
  return terminal
}
const ws = async (engine: WebRtcEngine, clientId: string) => {
  const terminal = await WsTerminal.connect(engine.port, await engine.token(clientId), engine.ca)
  open.push(terminal)
  return terminal
}

/** UDP sockets and timers of this process, as Node counts them. */
const handles = () => {
  const info = process.getActiveResourcesInfo()
  return { udp: info.filter((r) => r === 'UDPWrap').length, timers: info.filter((r) => r === 'Timeout').length }
}
/**
 * Wait (on the event loop, bounded) until the handle counts are back to `baseline` at most:
 * true when they are, false when sockets or timers are still held after `limitMs`.
 */
const settled = async (baseline: { udp: number; timers: number }, limitMs = 5000): Promise<boolean> => {
  const until = performance.now() + limitMs
  for (;;) {
    const now = handles()
    if (now.udp <= baseline.udp && now.timers <= baseline.timers) return true
    if (performance.now() > until) return false
    await new Promise((resolve) => setImmediate(resolve))
  }
}

describe('webrtc lifecycle', () => {
  it('moves a live peer to another room on a mapping change: room.changed, and its audio follows', async () => {
    const e = await start()
    e.seed.addClient('peer', 'r1')
    e.seed.addClient('x', 'r1')
    e.seed.addClient('y', 'r2')
    const x = await ws(e, 'x')
    const y = await ws(e, 'y')
    await y.event('session')
    const peer = await webrtc(e, 'peer')
    await peer.event('session')
    await x.event('participant.joined', (ev) => ev.participant.id === 'peer')

    e.moveClient('peer', 'r2')
    expect(await peer.event('room.changed')).toMatchObject({ from: 'r1', to: 'r2', participants: [{ id: 'y' }] })
    await x.event('participant.left', (ev) => ev.participant.id === 'peer')
    await peer.sendOpus(Uint8Array.of(0x78, 42))
    expect((await y.frames.next((f) => f.opus[1] === 42)).sourceId).toBe(2)
    const tone = new ToneTalker(440)
    y.sendAudio(tone.nextUplink())
    await peer.packets.next()
    expect(e.engine.host.presence.get(e.seed.workspaceId, 'peer')).toMatchObject({ room: 'r2', transport: 'webrtc' })
  })

  it.each([
    ['revocation by jti', 'token_revoked'],
    ['revoke-all of the client', 'token_revoked'],
    ['deletion of the client', 'client_deleted'],
  ])('closes a live peer on %s: session.closing on the channel, then the connection', async (what, code) => {
    const e = await start()
    e.seed.addClient('peer', 'lobby')
    e.seed.addClient('dev', 'lobby')
    const dev = await ws(e, 'dev')
    const issued = await e.issue('peer')
    const peer = await webrtc(e, 'peer', issued.token)
    await peer.event('session')
    await dev.event('participant.joined', (ev) => ev.participant.id === 'peer')
    const { security, storage } = e.engine.host
    if (what === 'revocation by jti') security.tokens.revoke(e.seed.workspaceId, issued.jti)
    else if (what === 'revoke-all of the client') {
      // What POST /clients/{id}/token/revoke-all commits (plugins/rest/tokens.ts).
      const notBefore = Date.now() + 1
      storage.transaction(() => {
        storage.clients.revokeAllTokens(e.seed.workspaceId, 'peer', notBefore)
        storage.feed.record({ kind: 'client.tokensRevoked', workspaceId: e.seed.workspaceId, subject: 'peer', at: notBefore })
      })
    }
    else e.seed.deleteClient('peer')
    expect(await peer.event('session.closing')).toMatchObject({ code })
    expect(peer.events.items.at(-1)?.type).toBe('session.closing')
    await peer.ended
    await dev.event('participant.left', (ev) => ev.participant.id === 'peer')
    expect(e.transport().peerCount).toBe(0)
  })

  it('replaces the older session when the same client connects again (on WebRTC or WebSocket)', async () => {
    const e = await start()
    e.seed.addClient('peer', 'lobby')
    const first = await webrtc(e, 'peer')
    await first.event('session')
    const second = await webrtc(e, 'peer')
    await second.event('session')
    expect(await first.event('session.closing')).toMatchObject({ code: 'session_replaced' })
    await first.ended
    expect(e.transport().peerCount).toBe(1)
    const third = await ws(e, 'peer')
    await third.event('session')
    expect(await second.event('session.closing')).toMatchObject({ code: 'session_replaced' })
    await second.ended
    expect(e.transport().peerCount).toBe(0)
  })

  it('ends a peer on DELETE of its resource (204), only with a token of the same client', async () => {
    const e = await start()
    e.seed.addClient('peer', 'lobby')
    e.seed.addClient('other', 'lobby')
    const peer = await webrtc(e, 'peer')
    await peer.event('session')
    const del = (token: string | null, path = peer.location) =>
      httpsRequest(e.port, path, e.ca, { method: 'DELETE', headers: token ? { authorization: `Bearer ${token}` } : {} })
    expect((await del(null)).status).toBe(401)
    const foreign = await del(await e.token('other'))
    expect(foreign.status).toBe(404)
    expect(foreign.json()).toEqual({ error: { code: 'not_found', message: `no peer ${peer.peerId}` } })
    expect((await del(await e.token('peer'), '/v1/webrtc/peers/wrp_nope')).status).toBe(404)
    const ok = await del(await e.token('peer'))
    expect(ok.status).toBe(204)
    expect(ok.headers['access-control-allow-origin']).toBe('*')
    await peer.ended
    expect(e.transport().peerCount).toBe(0)
    expect(e.engine.host.terminals.session(e.seed.workspaceId, 'peer')).toBeUndefined()
    expect((await del(await e.token('peer'))).status).toBe(404)
  })

  it('ends the session when the terminal leaves (closing its channel and connection)', async () => {
    const e = await start()
    e.seed.addClient('peer', 'lobby')
    e.seed.addClient('dev', 'lobby')
    const dev = await ws(e, 'dev')
    const peer = await webrtc(e, 'peer')
    await peer.event('session')
    await dev.event('participant.joined', (ev) => ev.participant.id === 'peer')
    await peer.close()
    await dev.event('participant.left', (ev) => ev.participant.id === 'peer')
    expect(e.transport().peerCount).toBe(0)
  })

  it('closes an answered peer that never connects after webrtc.connectTimeoutMs on the engine clock, with no session', async () => {
    const clock = new ManualClock(Date.now())
    const e = await start({ webrtc: { connectTimeoutMs: 60_000 } }, { clock })
    e.seed.addClient('peer', 'lobby')
    const baseline = handles()
    // A client that posts its offer and never applies the answer: ICE never completes.
    const pc = loopbackPeer()
    pc.addTransceiver('audio', { direction: 'sendrecv' })
    pc.createDataChannel('hark')
    const res = await postOffer(e.port, e.ca, await gatheredOffer(pc), await e.token('peer'))
    expect(res.status).toBe(201)
    expect(e.transport().peerCount).toBe(1)
    const peer = e.transport().peer(String(res.headers.location).split('/').pop()!)!
    expect(peer.state).toBe('connecting')
    clock.advance(59_999)
    expect(peer.state).toBe('connecting')
    clock.advance(1)
    await peer.closed
    expect(e.transport().peerCount).toBe(0)
    expect(e.engine.host.terminals.session(e.seed.workspaceId, 'peer')).toBeUndefined()
    await pc.close()
    expect(await settled(baseline)).toBe(true)
  })

  it('replaces a still-connecting offer of the same client with its newer one', async () => {
    const e = await start()
    e.seed.addClient('peer', 'lobby')
    const pc = loopbackPeer()
    pc.addTransceiver('audio', { direction: 'sendrecv' })
    pc.createDataChannel('hark')
    const stale = await postOffer(e.port, e.ca, await gatheredOffer(pc), await e.token('peer'))
    const stalePeer = e.transport().peer(String(stale.headers.location).split('/').pop()!)!
    const peer = await webrtc(e, 'peer')
    await peer.event('session')
    await stalePeer.closed
    expect(e.transport().peerCount).toBe(1)
    await pc.close()
  })

  it('says server_shutting_down to every peer at shutdown and releases every socket and timer', async () => {
    const baseline = handles()
    const e = await start()
    const peers: WeriftTerminal[] = []
    for (let i = 0; i < 5; i++) {
      e.seed.addClient(`p${i}`, `room-${i % 2}`)
      const peer = await WeriftTerminal.connect(e.port, await e.token(`p${i}`), e.ca)
      await peer.event('session')
      peers.push(peer)
    }
    expect(e.transport().peerCount).toBe(5)
    expect(handles().udp).toBeGreaterThanOrEqual(10) // one socket per peer on each side
    await e.stop()
    t = null
    for (const peer of peers) {
      expect(peer.events.items.at(-1)).toMatchObject({ type: 'session.closing', code: 'server_shutting_down' })
      await peer.ended
    }
    for (const peer of peers) await peer.drop()
    expect(await settled(baseline)).toBe(true)
  })

  it('leaves no socket or timer behind after peers that left, were refused, timed out or were closed', async () => {
    const e = await start({ webrtc: { connectTimeoutMs: 300 } })
    e.seed.addClient('a', 'lobby')
    e.seed.addClient('b', 'lobby')
    e.seed.addClient('c', 'lobby')
    // Warm up what lives as long as the engine (first peer's certificate, caches).
    const warm = await webrtc(e, 'a')
    await warm.event('session')
    await warm.close()
    open.length = 0
    await settled({ udp: 0, timers: 0 }, 500)
    const baseline = handles()

    const a = await WeriftTerminal.connect(e.port, await e.token('a'), e.ca)
    await a.event('session')
    await a.sendOpus(Uint8Array.of(0x78, 1))
    const b = await WeriftTerminal.connect(e.port, await e.token('b'), e.ca)
    await b.event('session')
    const bIssued = await e.issue('c')
    const c = await WeriftTerminal.connect(e.port, bIssued.token, e.ca)
    await c.event('session')
    await a.close() // left
    e.engine.host.security.tokens.revoke(e.seed.workspaceId, bIssued.jti) // revoked
    await c.ended
    await c.drop()
    const del = await httpsRequest(e.port, b.location, e.ca, { method: 'DELETE', headers: { authorization: `Bearer ${await e.token('b')}` } })
    expect(del.status).toBe(204) // deleted
    await b.ended
    await b.drop()
    const pc = loopbackPeer() // never connects
    pc.addTransceiver('audio', { direction: 'sendrecv' })
    pc.createDataChannel('hark')
    expect((await postOffer(e.port, e.ca, await gatheredOffer(pc), await e.token('a'))).status).toBe(201)
    await pc.close()
    await new Promise<void>((resolve) => {
      const check = () => (e.transport().peerCount === 0 ? resolve() : setImmediate(check))
      check()
    })
    expect(await settled(baseline)).toBe(true)
  })
})
