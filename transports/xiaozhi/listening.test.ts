/**
 * Room audio while a xiaozhi device listens (spec/xiaozhi.md, "Room audio while the device
 * listens"), against a real engine: a listening device, an observer device that never listens
 * (what the room plays reaches it at once: the reference), and a WebSocket terminal in one room
 * with an agent. In manual mode nothing reaches the device until `listen stop`, then at most the
 * last 600 ms of the talk spurt still going; in auto mode only an agent's answer ends its turn;
 * in realtime mode everything reaches it at once; an agent's reply begun just before `listen
 * stop` arrives whole after it.
 */
import { randomUUID } from 'node:crypto'
import * as Schema from 'effect/Schema'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { AgentContext } from '../../core/agentProvider.js'
import { defineAgentProvider } from '../../core/extension.js'
import { Inbox, seedWorkspace, startTestEngine } from '../../core/test/helpers.js'
import { tone, UplinkEncoder } from '../../core/test/speech.js'
import { websocketTransport } from '../websocket/index.js'
import { TestTerminal } from '../websocket/test/terminalClient.js'
import { HOLD_MS } from './heldAudio.js'
import { xiaozhi } from './index.js'
import { XiaozhiDevice, type DeviceIdentity } from './test/device.js'

/** A quiet agent (the auto agent of every device's room) that the test speaks for. */
const started = new Inbox<AgentContext>()
const probeAgent = defineAgentProvider('probe', { isolate: false, create: () => ({
  configSchema: Schema.Struct({}),
  start: (ctx) => {
    started.push(ctx)
    return {}
  },
}) })

let t: Awaited<ReturnType<typeof startTestEngine>>
let seed: ReturnType<typeof seedWorkspace>
let url: string
let ca: string
let n = 0

beforeAll(async () => {
  t = await startTestEngine({
    agents: { defaultProvider: 'probe', defaultAgentStopDelaySeconds: 0 },
    extensions: [websocketTransport, ...xiaozhi, probeAgent],
  })
  seed = seedWorkspace(t.engine)
  url = `wss://127.0.0.1:${t.engine.ports.gateway}/xiaozhi/v1/`
  ca = t.engine.host.tls.cert
})
afterAll(() => t?.stop())

const identity = (): DeviceIdentity => ({ mac: `07:00:00:00:00:${(++n).toString(16).padStart(2, '0')}`, uuid: randomUUID() })

const device = async (clientId: string, room: string) => {
  seed.addClient(clientId, room)
  const token = t.engine.host.security.devicePasswords.reset(seed.workspaceId, clientId).password
  return XiaozhiDevice.connect({ url, ca, token, device: identity() })
}

/** A listening device, an observer device and a WebSocket terminal in `room`, with its agent running. */
const room = async (name: string) => {
  const xz = await device(`${name}-device`, name)
  const observer = await device(`${name}-observer`, name)
  seed.addClient(`${name}-web`, name)
  const token = (await t.engine.host.security.tokens.issue(seed.workspaceId, `${name}-web`, null)).token
  const web = await TestTerminal.connect(t.engine.ports.gateway!, { token }, ca)
  const session = await web.event('session')
  const agent = await started.next((ctx) => ctx.room === name, 5000, `the agent of ${name}`)
  // In the room for the devices too: in the session's participants, or joining after.
  if (!session.participants.some((p) => p.kind === 'agent')) await web.event('participant.joined', (e) => e.participant.kind === 'agent')
  const encoder = new UplinkEncoder()
  /** The terminal says `ms` of tone at once (20 ms frames; 50 within a second at most: its burst allowance). */
  const say = (ms: number, hz = 440) => {
    for (const frame of encoder.frames(tone(ms, hz))) web.sendAudio(frame)
  }
  const close = () => {
    xz.close()
    observer.close()
    web.close()
  }
  return { xz, observer, web, agent, say, close }
}

/** Resolves once `d` has received `count` audio packets in all. */
const packets = (d: XiaozhiDevice, count: number) => d.audio.next(() => d.audio.items.length >= count, 5000, `${count} packets`)

/** Nothing but JSON in the device's arrivals from `from` to `to`: no `tts start`, no audio. */
const silentBetween = (d: XiaozhiDevice, from: number, to: number) => {
  const between = d.order.slice(from, to)
  expect(between).not.toContain('tts:start')
  expect(between).not.toContain('audio')
}

const HELD_PACKETS = HOLD_MS / 60

describe('room audio while a xiaozhi device listens', () => {
  it('manual: nothing while the device listens; at listen stop the last 600 ms of the spurt going on, then the room live', async () => {
    const { xz, observer, say, close } = await room('manual-hold')
    xz.listenStart('manual')
    const listening = await xz.barrier()
    say(720)
    await packets(observer, 12)
    silentBetween(xz, listening, await xz.barrier())

    xz.listenStop()
    await xz.barrier()
    say(240, 660)
    await packets(observer, 12 + 4)
    const released = await xz.reply(0)
    // The last 600 ms of what was said during the turn (never more: it would come late), then the live audio.
    expect(released).toEqual(observer.audio.items.slice(12 - HELD_PACKETS, 16))
    expect(XiaozhiDevice.durations(released)).toEqual(released.map(() => 60))
    close()
  })

  it('manual: a talk spurt that ended during the turn is not replayed after it', async () => {
    const { xz, observer, say, close } = await room('manual-stale')
    xz.listenStart('manual')
    await xz.barrier()
    say(300)
    // The observer's tts stop: the room's audio paused 400 ms, that spurt is over.
    await observer.reply(0)
    xz.listenStop()
    silentBetween(xz, 0, await xz.barrier())
    say(600, 660)
    expect(await xz.reply(0)).toEqual(await observer.reply(1))
    close()
  })

  it("manual: an agent's reply begun just before listen stop arrives whole after it", async () => {
    const { xz, observer, agent, close } = await room('manual-agent')
    xz.listenStart('manual')
    await xz.barrier()
    agent.audio.push(tone(1200, 500))
    agent.audio.flush()
    await packets(observer, 1)
    silentBetween(xz, 0, await xz.barrier())
    xz.listenStop()
    const full = await observer.reply(0)
    expect(full.length).toBe(20)
    expect(await xz.reply(0)).toEqual(full)
    close()
  })

  it("auto: only an agent's answer ends the device's turn; a room without an agent answers with any audio", async () => {
    const { xz, observer, web, agent, say, close } = await room('auto')
    xz.listenStart('auto')
    await xz.barrier()
    say(300)
    await observer.reply(0)
    silentBetween(xz, 0, await xz.barrier())

    // The agent answers while the device listens: tts start ends its turn (the spurt that ended is not replayed).
    agent.audio.push(tone(600, 500))
    agent.audio.flush()
    expect(await xz.reply(0)).toEqual(await observer.reply(1))
    // It plays now, not listening: the terminal reaches it at once.
    say(300, 660)
    expect(await xz.reply(1)).toEqual(await observer.reply(2))

    // Listening again (the firmware's listen start after tts stop), in a room whose agent left: anyone answers.
    xz.listenStart('auto')
    await xz.barrier()
    await t.engine.host.agents.stop(seed.workspaceId, agent.agentId)
    await web.event('participant.left', (e) => e.participant.kind === 'agent')
    say(300, 550)
    expect(await xz.reply(2)).toEqual(await observer.reply(3))
    close()
  })

  it('realtime: the room reaches the listening device at once; a wake word out of manual drops what was held', async () => {
    const { xz, observer, say, close } = await room('realtime')
    xz.listenStart('realtime')
    await xz.barrier()
    say(300)
    // Full duplex: it keeps listening while it plays.
    expect(await xz.reply(0)).toEqual(await observer.reply(0))

    // The button (manual), then a wake word while it listens: the firmware aborts and listens in its default mode.
    xz.listenStart('manual')
    const listening = await xz.barrier()
    say(600, 660)
    await packets(observer, 5 + 10)
    silentBetween(xz, listening, await xz.barrier())
    xz.abort('wake_word_detected')
    xz.listenStart('realtime')
    const switched = await xz.barrier()
    say(300, 550)
    await packets(observer, 5 + 10 + 5)
    const live = await xz.reply(1)
    expect(xz.indexOf('tts:start', 1)).toBeGreaterThan(switched)
    expect(live).toEqual(observer.audio.items.slice(15, 20))
    close()
  })
})
