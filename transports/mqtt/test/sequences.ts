/**
 * Raw-packet sequences against a real engine: byte builders, the outcomes a sequence may have, and
 * a harness that sends each case over its own TCP socket (a `Wire`), asserts the exact bytes that
 * come back — nothing, one CONNACK / DISCONNECT with a reason code and a Reason String, or an exact
 * answer followed by PINGRESP — and then checks that a well-behaved bystander is still served.
 * Shared by strictness.test.ts and sequences.test.ts; every case speaks as client `m`.
 */
import { generate } from 'mqtt-packet'
import { expect, it } from 'vitest'
import type { Device } from './helpers.js'
import { varint } from '../varint.js'
import { Wire } from './wire.js'

// ---- bytes ------------------------------------------------------------------------------------

export type Bytes = ReadonlyArray<number> | Uint8Array
export type Version = 4 | 5
export const cat = (...parts: Bytes[]): number[] => parts.flatMap((p) => [...p])
export const u16 = (n: number): number[] => [(n >> 8) & 0xff, n & 0xff]
export const u32 = (n: number): number[] => [...u16(Math.floor(n / 0x10000)), ...u16(n & 0xffff)]
export const utf8 = (s: string): number[] => [...Buffer.from(s, 'utf8')]
/** A length-prefixed string or binary field. */
export const field = (v: string | Bytes): number[] => {
  const b = typeof v === 'string' ? utf8(v) : [...v]
  return [...u16(b.length), ...b]
}
export const packet = (first: number, body: Bytes): number[] => [first, ...varint(body.length), ...body]
/** A property set: its length, then the properties. */
export const propertySet = (properties: Bytes): number[] => [...varint(properties.length), ...properties]
export const hex = (b: Bytes) => Buffer.from([...b]).toString('hex')

export const PINGREQ = [0xc0, 0x00]
export const PINGRESP = [0xd0, 0x00]

export interface ConnectOptions {
  readonly properties?: Bytes
  readonly will?: { readonly properties?: Bytes; readonly topic?: string | Bytes }
  readonly clientId?: string | Bytes
  readonly username?: string | Bytes
  readonly password?: string
}

// ---- outcomes ---------------------------------------------------------------------------------

/** What the server must do with a sequence. */
export type Outcome =
  | { readonly kind: 'silent' } // nothing, then the socket closes
  | { readonly kind: 'disconnect'; readonly reason: number } // MQTT 5: DISCONNECT with the reason, then close
  | { readonly kind: 'connack'; readonly reason: number } // MQTT 5 CONNECT: CONNACK with the reason, then close
  | { readonly kind: 'answer'; readonly packets: ReadonlyArray<Bytes> } // accepted: exactly these, and the connection stays
  | { readonly kind: 'connected' } // an accepted CONNECT
  | { readonly kind: 'goodbye' } // an accepted DISCONNECT: nothing, the socket closes

export const silent: Outcome = { kind: 'silent' }
/** A refusal after CONNECT: 3.1.1 can only close; 5.0 says why first [MQTT-4.13.1-1]. */
export const refusedAfterConnect = (v: Version, reason: number): Outcome => (v === 5 ? { kind: 'disconnect', reason } : silent)
/** A refusal of CONNECT itself: 3.1.1 closes without CONNACK; 5.0 answers CONNACK with the reason (§3.1.4). */
export const refusedConnect = (v: Version, reason: number): Outcome => (v === 5 ? { kind: 'connack', reason } : silent)

export const describeOutcome = (o: Outcome): string =>
  o.kind === 'disconnect' || o.kind === 'connack'
    ? `${o.kind.toUpperCase()} 0x${o.reason.toString(16)} and close`
    : o.kind === 'silent'
      ? 'closed without a word'
      : o.kind === 'goodbye'
        ? 'closed (normal DISCONNECT)'
        : 'accepted'

/** The reason string inside a CONNACK / DISCONNECT the server sent (`skip` = bytes before the properties). */
export const reasonStringOf = (reply: Buffer, skip: number): string => {
  let pos = 1
  while (pos < reply.length && (reply[pos]! & 0x80) !== 0) pos++
  pos += 1 + skip
  if (reply[pos] === undefined || reply[pos] === 0) return ''
  while (pos < reply.length && (reply[pos]! & 0x80) !== 0) pos++
  pos++
  if (reply[pos] !== 0x1f) return ''
  const length = reply.readUInt16BE(pos + 1)
  return reply.toString('utf8', pos + 3, pos + 3 + length)
}

/** The exact CONNACK / DISCONNECT of a refusal, carrying the Reason String the server chose. */
const refusalBytes = (outcome: { kind: 'connack' | 'disconnect'; reason: number }, reasonString: string): Buffer =>
  outcome.kind === 'connack'
    ? generate({ cmd: 'connack', sessionPresent: false, reasonCode: outcome.reason, properties: { reasonString } }, { protocolVersion: 5 })
    : generate({ cmd: 'disconnect', reasonCode: outcome.reason, properties: { reasonString } }, { protocolVersion: 5 })

export interface Case {
  readonly name: string
  readonly version: Version
  readonly afterConnect: boolean
  /** Built when the case runs (a CONNECT carries the token issued in beforeAll). */
  readonly bytes: () => Bytes
  readonly outcome: Outcome
}

// ---- the harness --------------------------------------------------------------------------------

/** Made when the test file loads (its cases are generated then); `attach` in beforeAll gives it the engine. */
export class Sequences {
  private port = 0
  private token = ''
  private bystander: Device | null = null
  private pings = 0

  attach(o: { port: number; token: string; bystander: Device }): void {
    this.port = o.port
    this.token = o.token
    this.bystander = o.bystander
  }

  /** CONNECT's body for `m`: protocol name, level, flags, keepalive 60, (5.0) properties, then the payload fields. */
  connectBody(v: Version, o: ConnectOptions = {}): number[] {
    const flags = 0x80 | 0x40 | 0x02 | (o.will ? 0x04 : 0)
    return cat(
      field('MQTT'),
      [v, flags],
      u16(60),
      v === 5 ? propertySet(o.properties ?? []) : [],
      field(o.clientId ?? 'm'),
      o.will ? cat(v === 5 ? propertySet(o.will.properties ?? []) : [], field(o.will.topic ?? 'hark/m/will'), field('bye')) : [],
      field(o.username ?? 'm'),
      field(o.password ?? this.token),
    )
  }

  open(): Promise<Wire> {
    return Wire.open(this.port)
  }

  /** A session of client `m` on a raw socket, CONNACK received, and nothing more to come (downlink unsubscribed). */
  async session(v: Version): Promise<Wire> {
    const wire = await this.open()
    wire.write(packet(0x10, this.connectBody(v)))
    const connack = await wire.packet()
    expect(hex(connack.subarray(0, 4))).toMatch(/^20..0000$/)
    wire.write(packet(0xa2, cat(u16(1), v === 5 ? [0] : [], field('hark/m/down/audio'), field('hark/m/down/events'))))
    await wire.packetsUntil(0xb0)
    return wire
  }

  /** Send `bytes` on an open session and expect exactly `packets` back (then PINGRESP); the connection stays. */
  async answer(wire: Wire, bytes: Bytes, packets: ReadonlyArray<Bytes>): Promise<void> {
    wire.write(Uint8Array.from(bytes))
    wire.write(PINGREQ)
    const answer = await wire.packetsUntil(0xd0)
    expect(answer.map(hex)).toEqual([...packets, PINGRESP].map(hex))
    expect(wire.ended).toBe(false)
  }

  /** Send `bytes` and expect the server to close: silently, or after exactly one refusal (MQTT 5). */
  async closes(wire: Wire, bytes: Bytes, outcome: Outcome, before: ReadonlyArray<Bytes> = []): Promise<void> {
    const mark = wire.received
    wire.write(Uint8Array.from(bytes))
    await wire.closedWithin()
    const reply = wire.since(mark)
    const expected = [...before.map(hex)]
    if (outcome.kind === 'connack' || outcome.kind === 'disconnect') {
      const text = reasonStringOf(reply.subarray(Buffer.concat(before.map((b) => Buffer.from([...b]))).length), outcome.kind === 'connack' ? 2 : 1)
      expect(text.length).toBeGreaterThan(0)
      expected.push(hex(refusalBytes(outcome, text)))
    } else expect(outcome.kind === 'silent' || outcome.kind === 'goodbye').toBe(true)
    expect(hex(reply)).toBe(expected.join(''))
  }

  /** Send `bytes` (before or after CONNECT) and hold the server to `outcome`; then the bystander must still be served. */
  async check(v: Version, afterConnect: boolean, bytes: Bytes, outcome: Outcome): Promise<void> {
    const wire = afterConnect ? await this.session(v) : await this.open()
    wire.skipReceived()
    if (outcome.kind === 'answer') {
      await this.answer(wire, bytes, outcome.packets)
      await wire.destroy()
    } else if (outcome.kind === 'connected') {
      wire.write(Uint8Array.from(bytes))
      const connack = await wire.packet()
      expect(hex(connack.subarray(0, 4))).toMatch(/^20..0000$/)
      wire.write(PINGREQ)
      await wire.packetsUntil(0xd0) // the session event may come first
      await wire.destroy()
    } else {
      await this.closes(wire, bytes, outcome)
    }
    await this.stillWorking()
  }

  /**
   * The bystander's connection still works: a QoS 1 audio frame is acknowledged (the control topic
   * would do too, but its rate limit of 20 messages/s would end the bystander's session).
   */
  async stillWorking(): Promise<void> {
    const bystander = this.bystander!
    await bystander.client.publishAsync(bystander.ns.upAudio, Buffer.from([0x80, ++this.pings & 0xff]), { qos: 1 })
    expect(bystander.client.connected).toBe(true)
  }

  /** One test per case. */
  run(cases: Case[]): void {
    it.each(cases.map((c) => [`MQTT ${c.version === 5 ? '5' : '3.1.1'}: ${c.name} → ${describeOutcome(c.outcome)}`, c] as const))('%s', (_name, c) =>
      this.check(c.version, c.afterConnect, c.bytes(), c.outcome),
    )
  }
}
