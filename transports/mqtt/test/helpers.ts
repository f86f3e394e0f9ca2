/**
 * Test helpers of the MQTT transport: an engine with the transport on port 0, real mqtt.js
 * clients (3.1.1 and 5.0), and a raw socket client for byte-level tests (malformed packets,
 * clients that do not acknowledge). Everything waits on events, never on sleeps.
 */
import { connect as netConnect, type Socket } from 'node:net'
import mqtt, { type IClientOptions, type MqttClient } from 'mqtt'
import { generate, parser as createParser, type Packet } from 'mqtt-packet'
import type { ServerEvent } from '../../../core/events.js'
import type { EngineOptions } from '../../../core/engine.js'
import type { Extension } from '../../../core/extension.js'
import { Inbox, nextEvent, seedWorkspace, startTestEngine } from '../../../core/test/helpers.js'
import { mqttTransport } from '../index.js'
import { topicNamespace } from '../topics.js'
import { varint } from '../varint.js'

export type TestEngine = Awaited<ReturnType<typeof startTestEngine>>

/** An engine with the MQTT transport (and any other extensions given) on free ports, one workspace seeded. */
export const startMqttEngine = async (
  mqttSettings: Record<string, unknown> = {},
  extensions: ReadonlyArray<Extension> = [mqttTransport],
  options: EngineOptions = {},
) => {
  const t = await startTestEngine({ mqtt: { port: 0, tlsPort: null, ...mqttSettings }, extensions }, options)
  const seed = seedWorkspace(t.engine)
  const port = t.engine.ports.mqtt!
  const token = async (clientId: string, ttl: number | null = null) =>
    (await t.engine.host.security.tokens.issue(seed.workspaceId, clientId, ttl)).token
  const devicePassword = (clientId: string) => t.engine.host.security.devicePasswords.reset(seed.workspaceId, clientId).password
  return { ...t, seed, port, token, devicePassword }
}

/** An mqtt.js client that records what it receives on its namespace. */
export class Device {
  readonly events = new Inbox<ServerEvent>()
  readonly audio = new Inbox<Buffer>()
  readonly messages = new Inbox<{ topic: string; payload: Buffer; packet: Packet }>()
  readonly disconnects = new Inbox<Packet>()
  /** Every packet mqtt.js received. */
  readonly received = new Inbox<Packet>()
  readonly closed: Promise<void>
  readonly ns: ReturnType<typeof topicNamespace>

  constructor(
    readonly client: MqttClient,
    readonly clientId: string,
  ) {
    this.ns = topicNamespace(clientId)
    this.closed = new Promise((resolve) => client.once('close', () => resolve()))
    client.on('message', (topic, payload, packet) => {
      this.messages.push({ topic, payload, packet: packet as Packet })
      if (topic === this.ns.downEvents) this.events.push(JSON.parse(payload.toString('utf8')) as ServerEvent)
      else if (topic === this.ns.downAudio) this.audio.push(payload)
    })
    client.on('disconnect', (packet) => this.disconnects.push(packet as Packet))
    client.on('packetreceive', (packet) => this.received.push(packet as Packet))
  }

  event<T extends ServerEvent['type']>(type: T, predicate?: (e: Extract<ServerEvent, { type: T }>) => boolean) {
    return nextEvent(this.events, type, predicate, { at: this.clientId })
  }

  publishAudio(payload: Uint8Array): void {
    this.client.publish(this.ns.upAudio, Buffer.from(payload), { qos: 0 })
  }

  end(): Promise<void> {
    return new Promise((resolve) => this.client.end(true, {}, () => resolve()))
  }
}

/** Connect mqtt.js and resolve once CONNACK arrived (rejects with the refusal). */
export const connectDevice = (port: number, clientId: string, options: IClientOptions = {}): Promise<Device> =>
  new Promise((resolve, reject) => {
    const client = mqtt.connect({
      host: '127.0.0.1',
      port,
      protocolVersion: 4,
      clientId,
      username: clientId,
      reconnectPeriod: 0,
      connectTimeout: 5000,
      keepalive: 60,
      ...options,
    })
    // Attach the recorder before CONNACK: events published right after it must not be missed.
    const device = new Device(client, clientId)
    client.once('connect', () => {
      client.removeListener('error', onError)
      client.on('error', () => {})
      resolve(device)
    })
    const onError = (e: Error) => {
      client.end(true)
      reject(e)
    }
    client.once('error', onError)
  })

const str = (s: string | Buffer) => {
  const b = typeof s === 'string' ? Buffer.from(s) : s
  return Buffer.concat([Buffer.from([b.length >> 8, b.length & 0xff]), b])
}

/** Encode a remaining length (MQTT variable byte integer). */
export { varint }

/** Wrap a body into a packet with the given first byte. */
export const packetBytes = (first: number, body: Buffer | number[]): Buffer => {
  const b = Buffer.isBuffer(body) ? body : Buffer.from(body)
  return Buffer.concat([Buffer.from([first, ...varint(b.length)]), b])
}

/**
 * A CONNECT built by hand, for what mqtt-packet's encoder refuses to produce (a password without
 * a user name, an empty identifier with Clean Session 0) and for byte-level malformations.
 */
export const connectBytes = (o: {
  version: 4 | 5
  clientId: string
  username?: string
  password?: string
  clean?: boolean
  keepalive?: number
}): Buffer => {
  const flags = (o.username !== undefined ? 0x80 : 0) | (o.password !== undefined ? 0x40 : 0) | (o.clean === false ? 0 : 0x02)
  const keepalive = o.keepalive ?? 60
  const body = Buffer.concat([
    str('MQTT'),
    Buffer.from([o.version, flags, keepalive >> 8, keepalive & 0xff]),
    o.version === 5 ? Buffer.from([0]) : Buffer.alloc(0),
    str(o.clientId),
    o.username !== undefined ? str(o.username) : Buffer.alloc(0),
    o.password !== undefined ? str(o.password) : Buffer.alloc(0),
  ])
  return packetBytes(0x10, body)
}

/** A byte-level MQTT client on a plain socket: sends what it is told, parses what comes back. */
export class RawClient {
  readonly packets = new Inbox<Packet>()
  readonly closed: Promise<void>
  private readonly parser
  ended = false

  private constructor(
    readonly socket: Socket,
    readonly version: 4 | 5,
  ) {
    this.parser = createParser({ protocolVersion: version })
    this.parser.on('packet', (p: Packet) => this.packets.push(p))
    this.parser.on('error', () => {})
    socket.on('data', (d: Buffer) => this.parser.parse(d))
    socket.on('error', () => {})
    this.closed = new Promise((resolve) =>
      socket.once('close', () => {
        this.ended = true
        resolve()
      }),
    )
  }

  static open(port: number, version: 4 | 5 = 4): Promise<RawClient> {
    return new Promise((resolve, reject) => {
      const socket = netConnect({ host: '127.0.0.1', port }, () => {
        socket.off('error', reject)
        resolve(new RawClient(socket, version))
      })
      socket.once('error', reject)
    })
  }

  write(bytes: Uint8Array | number[]): void {
    this.socket.write(bytes instanceof Uint8Array ? bytes : Uint8Array.from(bytes))
  }

  send(packet: Packet): void {
    this.write(generate(packet, { protocolVersion: this.version }))
  }

  next<C extends Packet['cmd']>(cmd: C, predicate: (p: Extract<Packet, { cmd: C }>) => boolean = () => true, timeoutMs = 5000) {
    return this.packets.next((p) => p.cmd === cmd && predicate(p as Extract<Packet, { cmd: C }>), timeoutMs, cmd) as Promise<
      Extract<Packet, { cmd: C }>
    >
  }

  /** CONNECT with a credential; resolves with the CONNACK. */
  async connect(clientId: string, password: string, extra: Partial<Extract<Packet, { cmd: 'connect' }>> = {}) {
    this.send({
      cmd: 'connect',
      protocolId: 'MQTT',
      protocolVersion: this.version,
      clean: true,
      clientId,
      keepalive: 60,
      username: clientId,
      password: Buffer.from(password),
      ...extra,
    })
    return this.next('connack')
  }

  destroy(): void {
    this.socket.destroy()
  }
}
