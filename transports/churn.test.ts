/**
 * Terminals coming and going leave nothing behind (issue 33 item 5). Cycles of a WSS terminal
 * (an expiring token: its session has a client actor) and an MQTT device (a long-lived token), each
 * a distinct client in a room of its own, connect, hear their `session` event or CONNACK and
 * disconnect; once every connection is closed, the engine holds as many connections, sessions,
 * actors and timers as it did before the churn — counted by constructor on the heap
 * (`v8.queryObjects`, which collects garbage first), not by RSS.
 */
import { connect as netConnect } from 'node:net'
import { queryObjects } from 'node:v8'
import WebSocket from 'ws'
import { Actor } from 'xstate'
import * as HashMap from 'effect/HashMap'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Session } from '../core/session.js'
import { MqttConnection } from './mqtt/connection.js'
import { mqttTransport } from './mqtt/index.js'
import { startMqttEngine } from './mqtt/test/helpers.js'
import { WsTerminal } from './websocket/connection.js'
import { websocketTransport } from './websocket/index.js'

const CYCLES = 400
const WARMUP = 40
const LANES = 8

let t: Awaited<ReturnType<typeof startMqttEngine>>
beforeAll(async () => {
  t = await startMqttEngine({}, [mqttTransport, websocketTransport])
})
afterAll(() => t.stop())

interface Terminal {
  readonly clientId: string
  readonly wsToken: string
  readonly mqttToken: string
}

const utf8 = (s: string): Buffer => {
  const b = Buffer.from(s, 'utf8')
  return Buffer.concat([Buffer.from([b.length >> 8, b.length & 0xff]), b])
}

/** MQTT 3.1.1 CONNECT, clean session, user name = client id, password = token (short enough for a one-byte length). */
const connectPacket = (clientId: string, token: string): Buffer => {
  const body = Buffer.concat([utf8('MQTT'), Buffer.from([4, 0xc2, 0, 60]), utf8(clientId), utf8(clientId), utf8(token)])
  const length = body.length < 128 ? [body.length] : [(body.length & 0x7f) | 0x80, body.length >> 7]
  return Buffer.concat([Buffer.from([0x10, ...length]), body])
}

/** WSS: open, hear `session`, close, wait for the close handshake. */
const wsCycle = (c: Terminal): Promise<void> =>
  new Promise((resolve, reject) => {
    const ws = new WebSocket(`wss://127.0.0.1:${t.engine.ports.gateway}/v1/connect?token=${c.wsToken}`, {
      ca: t.engine.host.tls.cert,
      perMessageDeflate: false,
    })
    let heard = false
    ws.on('message', (data: Buffer, isBinary: boolean) => {
      if (heard || isBinary || (JSON.parse(data.toString()) as { type: string }).type !== 'session') return
      heard = true
      ws.close(1000)
    })
    ws.on('error', reject)
    ws.on('close', () => (heard ? resolve() : reject(new Error(`${c.clientId}: closed before its session event`))))
  })

/** MQTT: CONNECT, hear CONNACK 0, DISCONNECT, wait for the server to close. */
const mqttCycle = (c: Terminal): Promise<void> =>
  new Promise((resolve, reject) => {
    const socket = netConnect({ host: '127.0.0.1', port: t.port })
    let acked = false
    socket.once('connect', () => socket.write(connectPacket(c.clientId, c.mqttToken)))
    socket.on('data', (chunk: Buffer) => {
      if (acked) return
      if (chunk[0] !== 0x20 || chunk[3] !== 0) return reject(new Error(`${c.clientId}: CONNACK ${chunk.toString('hex')}`))
      acked = true
      socket.end(Buffer.from([0xe0, 0x00]))
    })
    socket.on('error', reject)
    socket.on('close', () => (acked ? resolve() : reject(new Error(`${c.clientId}: closed before CONNACK`))))
  })

const terminals = async (from: number, count: number): Promise<Terminal[]> => {
  const out: Terminal[] = []
  for (let i = from; i < from + count; i++) {
    const clientId = `churn-${i}`
    t.seed.addClient(clientId, `room-${i}`)
    out.push({ clientId, wsToken: await t.token(clientId, 3600), mqttToken: await t.token(clientId) })
  }
  return out
}

const churn = async (list: readonly Terminal[]): Promise<void> => {
  let next = 0
  const lane = async () => {
    while (next < list.length) {
      const c = list[next++]!
      await wsCycle(c)
      await mqttCycle(c)
    }
  }
  await Promise.all(Array.from({ length: LANES }, lane))
}

/** Until the engine has seen every connection close: no session, no room, no MQTT connection open. */
const drained = async (): Promise<void> => {
  const open = async () => {
    const context = t.engine.host.terminals.context(t.seed.workspaceId)
    const mqtt = (await t.engine.host.metrics.getSingleMetric('hark_mqtt_connections')!.get()).values[0]?.value ?? 0
    return context === undefined ? mqtt : HashMap.size(context.sessions) + HashMap.size(context.rooms) + mqtt
  }
  // Bounded: each look waits for the event loop to turn (sockets close on it).
  for (let i = 0; i < 2000 && (await open()) > 0; i++) await new Promise((resolve) => setTimeout(resolve, 5))
  expect(await open()).toBe(0)
  // The last sessions' usage rows wait for their group commit (up to usage.groupCommitMs), and the
  // introduction gate holds those sessions until it: once it is open, nothing holds them.
  await new Promise<void>((resolve) => t.engine.host.terminals.introductions.wait(resolve))
}

const Timeout = setTimeout(() => {}, 0).constructor as new () => unknown

/** Live objects by constructor (queryObjects collects garbage first). */
const counts = () => ({
  mqttConnections: queryObjects(MqttConnection, { format: 'count' }),
  wsTerminals: queryObjects(WsTerminal, { format: 'count' }),
  sessions: queryObjects(Session, { format: 'count' }),
  actors: queryObjects(Actor, { format: 'count' }),
  timeouts: queryObjects(Timeout, { format: 'count' }),
})

describe('connect/disconnect churn', () => {
  it(`leaves connections, sessions, actors and timers as they were after ${CYCLES} WSS + MQTT cycles`, async () => {
    await churn(await terminals(0, WARMUP))
    await drained()
    const before = counts()
    // Nothing of a closed connection is left, not even for a grace period (an MQTT socket's close
    // grace used to keep its connection, session and actors for 2 s after every disconnect).
    expect(before).toMatchObject({ mqttConnections: 0, wsTerminals: 0, sessions: 0 })
    const list = await terminals(WARMUP, CYCLES)
    await churn(list)
    await drained()
    expect(counts()).toEqual(before)
  }, 120_000)
})
