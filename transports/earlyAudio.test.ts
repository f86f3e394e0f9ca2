/**
 * A terminal that sends audio as soon as it is connected, before it has heard `session` (issue 39
 * item 2). A new session's `session` event waits for its usage row's group commit (core/session.ts
 * IntroductionGate); until it goes out the session's room neither forwards its frames (dropped,
 * counted `early`) nor sends it any. Here the test holds the gate itself while the terminal sends,
 * so the window is as wide as it wants, then lets it go: over real WebSocket and MQTT clients, a
 * peer in the room gets the terminal's frames only after the server sent that terminal `session`,
 * with its usage row committed by then; the terminal hears `session` before any audio, stays
 * connected, and has exactly one usage row.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { audioDrops } from '../core/dataplane/drops.js'
import type { ServerEvent } from '../core/events.js'
import type { TerminalLink, TerminalSession } from '../core/session.js'
import type { TerminalIdentity } from '../core/security/security.js'
import { Inbox, RecordingLink, uplink } from '../core/test/helpers.js'
import { mqttTransport } from './mqtt/index.js'
import { connectDevice, startMqttEngine } from './mqtt/test/helpers.js'
import { websocketTransport } from './websocket/index.js'
import { TestTerminal } from './websocket/test/terminalClient.js'

let t: Awaited<ReturnType<typeof startMqttEngine>>
beforeAll(async () => {
  t = await startMqttEngine({}, [mqttTransport, websocketTransport])
  t.seed.addClient('peer', 'lobby')
  for (const id of ['ws-dev', 'mqtt-dev']) t.seed.addClient(id, 'lobby')
})
afterAll(() => t.stop())

const usageRows = (clientId: string): number =>
  (t.engine.host.storage.db.prepare('SELECT count(*) AS n FROM usage_sessions WHERE workspace_id = ? AND client_id = ?')
    .get(t.seed.workspaceId, clientId) as { n: number }).n

/**
 * Watch the server side of `clientId`'s next session: whether its link has been sent `session`
 * yet, and each uplink frame the transport hands it (a wrapper around the real hub's open).
 */
const watchOpen = (clientId: string) => {
  const { terminals } = t.engine.host
  const open = terminals.open.bind(terminals)
  const watched = { sessionSent: false, pushed: new Inbox<number>(), sourceId: -1 }
  terminals.open = (identity: TerminalIdentity, link: TerminalLink, options?: Parameters<typeof open>[2]): TerminalSession => {
    if (identity.clientId !== clientId) return open(identity, link, options)
    terminals.open = open
    const sendEvent = link.sendEvent.bind(link)
    link.sendEvent = (event: ServerEvent) => {
      if (event.type === 'session') {
        watched.sessionSent = true
        watched.sourceId = event.sourceId ?? -1
      }
      sendEvent(event)
    }
    const session = open(identity, link, options)
    const pushAudio = session.pushAudio.bind(session)
    let n = 0
    session.pushAudio = (frame, now) => {
      pushAudio(frame, now)
      watched.pushed.push(++n)
    }
    return session
  }
  return watched
}

/** A peer in the room (an in-process link): each frame from `watched`'s source is checked as it is delivered. */
const openPeer = async (clientId: string, watched: ReturnType<typeof watchOpen>) => {
  const { security, terminals } = t.engine.host
  const link = new RecordingLink()
  const fromDev: Array<{ sessionSent: boolean; rows: number }> = []
  const heard = new Inbox<number>()
  link.deliverAudio = (frame: Uint8Array) => {
    link.frames.push(frame)
    const source = (frame[2]! << 8) | frame[3]!
    if (source !== watched.sourceId && watched.sessionSent) return
    // Before `session` the source id is unknown here: any frame is a frame too early.
    fromDev.push({ sessionSent: watched.sessionSent, rows: usageRows(clientId) })
    heard.push(fromDev.length)
  }
  const identity = await security.authenticateTerminal({ token: (await security.tokens.issue(t.seed.workspaceId, 'peer', null)).token })
  const session = terminals.open(identity, link)
  await link.event('session')
  return { link, session, fromDev, heard }
}

/** What every run checks: held, nothing crosses; released, audio flows both ways after `session`. */
const runHeld = async (
  clientId: string,
  transport: string,
  connect: () => Promise<{ order: () => string[]; startSending: () => () => void; sessionHeard: () => Promise<unknown>; audioHeard: () => Promise<unknown>; closed: () => boolean; end: () => Promise<void> }>,
) => {
  const { terminals } = t.engine.host
  const watched = watchOpen(clientId)
  const peer = await openPeer(clientId, watched)
  const early = audioDrops(t.engine.host.metrics).cell(transport, 'early')
  const earlyBefore = early.count
  terminals.introductions.hold()
  let released = false
  let stop = () => {}
  try {
    const dev = await connect()
    stop = dev.startSending()
    // The terminal's frames reach its session while `session` is held: dropped, counted.
    await watched.pushed.next((n) => n >= 3, 5000, 'three early frames at the server')
    expect(watched.sessionSent).toBe(false)
    expect(early.count - earlyBefore).toBeGreaterThanOrEqual(3)
    expect(peer.fromDev).toEqual([])
    // Nor does the room send the held session the peer's audio.
    peer.session.pushAudio(uplink([0x78, 9, 9]))
    terminals.introductions.release()
    released = true
    await dev.sessionHeard()
    expect(watched.sessionSent).toBe(true)
    // From now on its frames go into the room: the peer hears them, each after `session`, its row committed.
    await peer.heard.next((n) => n >= 3, 5000, `three frames of ${clientId} at the peer`)
    stop()
    expect(peer.fromDev.every((f) => f.sessionSent && f.rows === 1)).toBe(true)
    peer.session.pushAudio(uplink([0x78, 7, 7]))
    await dev.audioHeard()
    expect(dev.order()[0]).toBe('session')
    expect(dev.order().filter((m) => m === 'audio')).toHaveLength(1)
    expect(dev.closed()).toBe(false)
    expect(usageRows(clientId)).toBe(1)
    // Scraped: the live session of its transport, the early frames by their reason.
    const scraped = await t.engine.host.metrics.metrics()
    expect(scraped).toContain(`hark_sessions{transport="${transport}"} 1`)
    expect(scraped).toMatch(new RegExp(`hark_audio_frames_dropped_total\\{transport="${transport}",reason="early"\\} [1-9]`))
    await dev.end()
  } finally {
    stop()
    if (!released) terminals.introductions.release()
    peer.session.end()
  }
}

describe('audio sent before `session`', () => {
  it('WebSocket: dropped (early) while the introduction is held, delivered after `session`; the socket stays open', async () => {
    const token = (await t.engine.host.security.tokens.issue(t.seed.workspaceId, 'ws-dev', null)).token
    await runHeld('ws-dev', 'websocket', async () => {
      const terminal = await TestTerminal.connect(t.engine.ports.gateway!, { token }, t.engine.host.tls.cert)
      let closed = false
      void terminal.closed.then(() => (closed = true))
      return {
        order: () => terminal.order,
        startSending: () => {
          let i = 0
          terminal.sendAudio(uplink([0x78, i++]))
          const timer = setInterval(() => terminal.sendAudio(uplink([0x78, i++ & 0xff])), 10)
          return () => clearInterval(timer)
        },
        sessionHeard: () => terminal.event('session'),
        audioHeard: () => terminal.frames.next(),
        closed: () => closed,
        end: async () => {
          terminal.close()
          await terminal.closed
        },
      }
    })
  })

  it('MQTT: dropped (early) while the introduction is held, delivered after `session`; the connection stays open', async () => {
    await runHeld('mqtt-dev', 'mqtt', async () => {
      const device = await connectDevice(t.port, 'mqtt-dev', { password: await t.token('mqtt-dev') })
      let closed = false
      void device.closed.then(() => (closed = true))
      const order: string[] = []
      device.client.on('message', (topic, payload) => {
        order.push(topic === device.ns.downAudio ? 'audio' : (JSON.parse(payload.toString('utf8')) as ServerEvent).type)
      })
      return {
        order: () => order,
        startSending: () => {
          let i = 0
          device.publishAudio(uplink([0x78, i++]))
          const timer = setInterval(() => device.publishAudio(uplink([0x78, i++ & 0xff])), 10)
          return () => clearInterval(timer)
        },
        sessionHeard: () => device.event('session'),
        audioHeard: () => device.audio.next(),
        closed: () => closed,
        end: () => device.end(),
      }
    })
  })
})
