/**
 * WebRTC signalling over real HTTPS on the gateway port: what an offer must carry, every refusal
 * with its status and envelope (credentials first), the two body formats, CORS, the ICE servers
 * handed to clients, the capacity limit, and the network settings (announced address, port range).
 */
import { afterEach, describe, expect, it } from 'vitest'
import { createHmac } from 'node:crypto'
import { ConfigError } from '../../core/config.js'
import { createTestEngine, tempDir } from '../../core/test/helpers.js'
import { httpsRequest } from '../../core/test/https.js'
import { startWebRtcEngine, type WebRtcEngine } from './test/engine.js'
import { webrtcTransport } from './index.js'
import { gatheredOffer, loopbackPeer, postOffer, WeriftTerminal } from './test/weriftTerminal.js'

let t: WebRtcEngine | null = null
const closers: Array<() => unknown> = []

afterEach(async () => {
  for (const close of closers.splice(0)) await close()
  await t?.stop()
  t = null
})

const start = async (config: Parameters<typeof startWebRtcEngine>[0] = {}) => {
  t = await startWebRtcEngine(config)
  t.seed.addClient('peer', 'lobby')
  return t
}

/** A gathered offer from a werift peer (audio + data channel unless told otherwise). */
const offerOf = async (opts: { audio?: boolean; data?: boolean; video?: boolean } = {}) => {
  const pc = loopbackPeer(true, opts.video ?? false)
  closers.push(() => pc.close())
  if (opts.audio ?? true) pc.addTransceiver('audio', { direction: 'sendrecv' })
  if (opts.video) pc.addTransceiver('video', { direction: 'sendrecv' })
  if (opts.data ?? true) pc.createDataChannel('hark')
  return gatheredOffer(pc)
}

const post = (e: WebRtcEngine, path: string, headers: Record<string, string | string[]>, body?: string) =>
  httpsRequest(e.port, path, e.ca, { method: 'POST', headers, body })

describe('POST /v1/webrtc/offer', () => {
  it('answers application/sdp with 201, the complete answer, Location of the peer and CORS headers', async () => {
    const e = await start()
    const res = await postOffer(e.port, e.ca, await offerOf(), await e.token('peer'))
    expect(res.status).toBe(201)
    expect(res.headers['content-type']).toBe('application/sdp')
    expect(res.headers.location).toMatch(/^\/v1\/webrtc\/peers\/wrp_[0-9A-Za-z]{16}$/)
    expect(res.headers['access-control-allow-origin']).toBe('*')
    expect(res.headers['access-control-expose-headers']).toBe('Location, Link')
    expect(res.headers.link).toBeUndefined()
    const sdp = res.text
    expect(sdp).toMatch(/^v=0\r\n/)
    expect(sdp).toMatch(/a=candidate:\S+ 1 udp \d+ 127\.0\.0\.1 \d+ typ host/)
    expect(sdp).toContain('a=end-of-candidates')
    expect(sdp).toMatch(/a=fingerprint:sha-256 /)
    expect(sdp).toMatch(/a=rtpmap:\d+ opus\/48000\/2/)
    expect(sdp).toContain('urn:ietf:params:rtp-hdrext:ssrc-audio-level')
    expect(sdp).toContain('a=sendrecv')
    expect(sdp).toContain('m=application')
    expect(sdp).not.toMatch(/typ (srflx|relay)/)
  })

  it('answers JSON {type, sdp} with JSON {type: "answer", sdp, peerId, location, iceServers}', async () => {
    const e = await start()
    const res = await postOffer(e.port, e.ca, await offerOf(), await e.token('peer'), 'json')
    expect(res.status).toBe(201)
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8')
    const body = res.json<{ type: string; sdp: string; peerId: string; location: string; iceServers: unknown[] }>()
    expect(body).toMatchObject({ type: 'answer', iceServers: [] })
    expect(body.location).toBe(`/v1/webrtc/peers/${body.peerId}`)
    expect(res.headers.location).toBe(body.location)
    expect(body.sdp).toMatch(/^v=0\r\n/)
  })

  it('refuses credentials before anything else: no header 401, two headers 400, a query token 400, bad tokens 401', async () => {
    const e = await start()
    const token = await e.token('peer')
    const sdp = await offerOf()
    const headers = { 'content-type': 'application/sdp' }

    const none = await post(e, '/v1/webrtc/offer', headers, sdp)
    expect(none.status).toBe(401)
    expect(none.json()).toEqual({ error: { code: 'invalid_token', message: 'missing Authorization: Bearer header' } })
    expect(none.headers['www-authenticate']).toMatch(/^Bearer realm="hark", error="invalid_token"/)
    expect(none.headers['access-control-allow-origin']).toBe('*')

    const two = await post(e, '/v1/webrtc/offer', { ...headers, authorization: [`Bearer ${token}`, `Bearer ${token}`] }, sdp)
    expect(two.status).toBe(400)
    expect(two.json()).toEqual({ error: { code: 'validation_failed', message: 'exactly one Authorization header is accepted, got 2' } })

    for (const name of ['token', 'access_token']) {
      const query = await post(e, `/v1/webrtc/offer?${name}=${token}`, { ...headers, authorization: `Bearer ${token}` }, sdp)
      expect(query.status).toBe(400)
      expect(query.json()).toEqual({
        error: { code: 'validation_failed', message: 'a client token in the query string is refused: send it in one Authorization: Bearer header' },
      })
    }
    const queryOnly = await post(e, `/v1/webrtc/offer?token=${token}`, headers, sdp)
    expect(queryOnly.status).toBe(400)

    const basic = await post(e, '/v1/webrtc/offer', { ...headers, authorization: 'Basic dXNlcjpwYXNz' }, sdp)
    expect(basic.status).toBe(401)
    expect(basic.json()).toMatchObject({ error: { code: 'invalid_token', message: 'the Authorization header must be "Bearer <client token>"' } })
    const garbage = await post(e, '/v1/webrtc/offer', { ...headers, authorization: 'Bearer not.a.jwt' }, sdp)
    expect(garbage.status).toBe(401)
    expect(garbage.json()).toMatchObject({ error: { code: 'invalid_token' } })
    const revoked = await e.issue('peer')
    e.engine.host.security.tokens.revoke(e.seed.workspaceId, revoked.jti)
    const refused = await post(e, '/v1/webrtc/offer', { ...headers, authorization: `Bearer ${revoked.token}` }, sdp)
    expect(refused.status).toBe(401)
    expect(refused.json()).toMatchObject({ error: { code: 'token_revoked' } })
    expect(refused.headers['www-authenticate']).toContain('error_description="token_revoked"')
    e.seed.addClient('gone', 'lobby')
    const orphan = await e.token('gone')
    e.engine.host.storage.transaction(() => e.engine.host.storage.clients.delete(e.seed.workspaceId, 'gone'))
    expect((await post(e, '/v1/webrtc/offer', { ...headers, authorization: `Bearer ${orphan}` }, sdp)).json()).toMatchObject({
      error: { code: 'client_not_found' },
    })
    expect(e.transport().peerCount).toBe(0)
  })

  it('refuses bodies it cannot take: media type 415, malformed JSON 400, bad JSON shape 400, over 64 KiB 413', async () => {
    const e = await start()
    const auth = { authorization: `Bearer ${await e.token('peer')}` }
    const sdp = await offerOf()
    const text = await post(e, '/v1/webrtc/offer', { ...auth, 'content-type': 'text/plain' }, sdp)
    expect(text.status).toBe(415)
    expect(text.json()).toEqual({ error: { code: 'unsupported_media_type', message: 'Content-Type must be application/sdp or application/json' } })
    expect((await post(e, '/v1/webrtc/offer', auth, sdp)).status).toBe(415)
    const json = { ...auth, 'content-type': 'application/json; charset=utf-8' }
    expect((await post(e, '/v1/webrtc/offer', json, '{"type":')).json()).toEqual({ error: { code: 'malformed_json', message: 'the body is not valid JSON' } })
    expect((await post(e, '/v1/webrtc/offer', json, '[1]')).json()).toMatchObject({ error: { code: 'validation_failed' } })
    expect((await post(e, '/v1/webrtc/offer', json, JSON.stringify({ type: 'answer', sdp }))).json()).toEqual({
      error: { code: 'validation_failed', message: '"type" must be "offer"' },
    })
    expect((await post(e, '/v1/webrtc/offer', json, JSON.stringify({ type: 'offer' }))).json()).toEqual({
      error: { code: 'validation_failed', message: '"sdp" must be a non-empty string' },
    })
    const huge = await post(e, '/v1/webrtc/offer', { ...auth, 'content-type': 'application/sdp' }, sdp + 'a=x-pad:' + 'x'.repeat(70_000) + '\r\n')
    expect(huge.status).toBe(413)
    expect(huge.json()).toMatchObject({ error: { code: 'payload_too_large' } })
    expect(e.transport().peerCount).toBe(0)
  })

  it('refuses offers Hark cannot answer, saying why (400 validation_failed)', async () => {
    const e = await start()
    const auth = { authorization: `Bearer ${await e.token('peer')}`, 'content-type': 'application/sdp' }
    const good = await offerOf()
    const cases: Array<[string, string, RegExp]> = [
      ['not SDP', 'hello', /not an SDP offer/],
      ['no media', 'v=0\r\no=- 1 1 IN IP4 0.0.0.0\r\ns=-\r\nt=0 0\r\n', /no media section/],
      ['no data channel', await offerOf({ data: false }), /no data channel/],
      ['no audio', await offerOf({ audio: false }), /0 audio sections/],
      ['video', await offerOf({ video: true }), /video is not supported/],
      ['no Opus', good.replace(/opus\/48000\/2/g, 'PCMU/8000'), /does not offer Opus/],
      ['plain RTP', good.replace(/UDP\/TLS\/RTP\/SAVPF/g, 'RTP/AVP').replace(/UDP\/DTLS\/SCTP/g, 'UDP/SCTP'), /DTLS-SRTP is required/],
      ['no fingerprint', good.replace(/a=fingerprint:[^\r]*\r\n/g, ''), /DTLS-SRTP is required/],
      ['not bundled', good.replace(/a=group:BUNDLE[^\r]*\r\n/, ''), /BUNDLE/],
    ]
    for (const [what, sdp, message] of cases) {
      const res = await post(e, '/v1/webrtc/offer', auth, sdp)
      expect(res.status, what).toBe(400)
      const body = res.json<{ error: { code: string; message: string } }>()
      expect(body.error.code, what).toBe('validation_failed')
      expect(body.error.message, what).toMatch(message)
    }
    expect(e.transport().peerCount).toBe(0)
  })

  it('refuses offers beyond webrtc.maxPeers with 503 capacity_exceeded and Retry-After', async () => {
    const e = await start({ webrtc: { maxPeers: 1 } })
    e.seed.addClient('other', 'lobby')
    const first = await postOffer(e.port, e.ca, await offerOf(), await e.token('peer'))
    expect(first.status).toBe(201)
    const second = await postOffer(e.port, e.ca, await offerOf(), await e.token('other'))
    expect(second.status).toBe(503)
    expect(second.headers['retry-after']).toBe('5')
    expect(second.json()).toEqual({ error: { code: 'capacity_exceeded', message: 'at most 1 WebRTC peers' } })
    const metrics = await (await fetch(e.url('/metrics'))).text()
    expect(metrics).toContain('hark_webrtc_offers_total{result="answered"} 1')
    expect(metrics).toContain('hark_webrtc_offers_total{result="capacity_exceeded"} 1')
    expect(metrics).toContain('hark_webrtc_peers 1')
  })

  it('answers CORS preflights and 405 for methods a path does not take', async () => {
    const e = await start()
    for (const path of ['/v1/webrtc/offer', '/v1/webrtc/peers/wrp_x', '/v1/webrtc/ice-servers']) {
      const res = await httpsRequest(e.port, path, e.ca, { method: 'OPTIONS' })
      expect(res.status).toBe(204)
      expect(res.headers).toMatchObject({
        'access-control-allow-origin': '*',
        'access-control-allow-methods': 'POST, GET, DELETE, OPTIONS',
        'access-control-allow-headers': 'Authorization, Content-Type',
      })
    }
    const get = await httpsRequest(e.port, '/v1/webrtc/offer', e.ca)
    expect(get.status).toBe(405)
    expect(get.headers.allow).toBe('OPTIONS, POST')
    expect((await httpsRequest(e.port, '/v1/webrtc/peers/wrp_x', e.ca, { method: 'PATCH' })).status).toBe(405)
  })
})

describe('ICE servers for clients', () => {
  it('hands out STUN and TURN with time-limited credentials (webrtc.turnSecret), as JSON and WHIP Link headers', async () => {
    const secret = 'turn-shared-secret'
    const e = await start({ webrtc: { iceServerUrls: 'stun:stun.example.net:3478, turn:turn.example.net:3478?transport=udp', turnSecret: secret } })
    const token = await e.token('peer')
    const before = Math.floor(Date.now() / 1000)
    const res = await httpsRequest(e.port, '/v1/webrtc/ice-servers', e.ca, { headers: { authorization: `Bearer ${token}` } })
    expect(res.status).toBe(200)
    const { iceServers } = res.json<{ iceServers: Array<{ urls: string[]; username?: string; credential?: string }> }>()
    expect(iceServers[0]).toEqual({ urls: ['stun:stun.example.net:3478'] })
    const turn = iceServers[1]!
    expect(turn.urls).toEqual(['turn:turn.example.net:3478?transport=udp'])
    const [expiry, workspaceId, clientId] = turn.username!.split(':')
    expect(Number(expiry)).toBeGreaterThanOrEqual(before + 86_400)
    expect([workspaceId, clientId]).toEqual([e.seed.workspaceId, 'peer'])
    expect(turn.credential).toBe(createHmac('sha1', secret).update(turn.username!).digest('base64'))
    expect(res.headers.link).toContain('<stun:stun.example.net:3478>; rel="ice-server"')
    expect(res.headers.link).toContain(`username="${turn.username}"; credential="${turn.credential}"; credential-type="password"`)
    expect((await httpsRequest(e.port, '/v1/webrtc/ice-servers', e.ca)).status).toBe(401)
    // The offer's response carries them too (WHIP-style Link headers).
    const offer = await postOffer(e.port, e.ca, await offerOf(), token)
    expect(offer.headers.link).toContain('<turn:turn.example.net:3478?transport=udp>; rel="ice-server"')
  })

  it('hands out static TURN credentials when no secret is set', async () => {
    const e = await start({ webrtc: { iceServerUrls: 'turns:turn.example.net:5349', turnUsername: 'u', turnCredential: 'p' } })
    const res = await httpsRequest(e.port, '/v1/webrtc/ice-servers', e.ca, { headers: { authorization: `Bearer ${await e.token('peer')}` } })
    expect(res.json()).toEqual({ iceServers: [{ urls: ['turns:turn.example.net:5349'], username: 'u', credential: 'p' }] })
  })
})

describe('network settings', () => {
  it('announces webrtc.announcedAddress instead of the host address (1:1 NAT)', async () => {
    const e = await start({ webrtc: { announcedAddress: '203.0.113.7' } })
    const res = await postOffer(e.port, e.ca, await offerOf(), await e.token('peer'))
    expect(res.status).toBe(201)
    expect(res.text).toMatch(/a=candidate:\S+ 1 udp \d+ 203\.0\.113\.7 \d+ typ host/)
    expect(res.text).not.toContain('127.0.0.1')
  })

  it('binds peers inside webrtc.portMin–portMax, one port each, also for offers arriving together', async () => {
    const e = await start({ webrtc: { portMin: 41_000, portMax: 41_010 } })
    const clients = ['p0', 'p1', 'p2', 'p3']
    for (const id of clients) e.seed.addClient(id, 'lobby')
    const terminals = await Promise.all(clients.map(async (id) => WeriftTerminal.connect(e.port, await e.token(id), e.ca)))
    for (const terminal of terminals) closers.push(() => terminal.close())
    await Promise.all(terminals.map((terminal) => terminal.event('session')))
    const ports = terminals.map((terminal) => {
      const sdp = terminal.response.text
      return Number(/a=candidate:\S+ 1 udp \d+ 127\.0\.0\.1 (\d+) typ host/.exec(sdp)![1])
    })
    expect(new Set(ports).size).toBe(4)
    for (const port of ports) {
      expect(port).toBeGreaterThanOrEqual(41_000)
      expect(port).toBeLessThanOrEqual(41_010)
    }
  })

  it.each([
    [{ hostAddresses: '127.0.0.1,not-an-ip' }, 'webrtc.hostAddresses'],
    [{ announcedAddress: 'example.com' }, 'webrtc.announcedAddress'],
    [{ portMin: 50_000, portMax: 49_000 }, 'webrtc.portMin'],
    [{ portMin: 80, portMax: 90 }, 'webrtc.portMin'],
    [{ iceServerUrls: 'http://x' }, 'webrtc.iceServerUrls'],
    [{ iceServerUrls: 'turn:x:3478' }, 'webrtc.iceServerUrls'],
  ])('refuses to start with bad webrtc settings, naming the setting (%#)', async (webrtc, setting) => {
    const dir = tempDir()
    const engine = createTestEngine({ dataDir: dir.path, webrtc, extensions: [webrtcTransport] })
    let error: unknown
    try {
      await engine.start()
    } catch (e) {
      error = e
    } finally {
      await engine.stop()
      dir.remove()
    }
    expect(error).toBeInstanceOf(ConfigError)
    expect((error as ConfigError).setting).toBe(setting)
  })
})
