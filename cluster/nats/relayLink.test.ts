/**
 * The relay link on real sockets on 127.0.0.1 (spec/cluster.md, The relay link): messages arrive
 * whole and in order however the stream is cut into reads, a stream that is not a link is closed,
 * and a sender whose link is cut says so (its messages go back to NATS) and dials again.
 */
import { connect } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { pino } from 'pino'
import { LinkListener, LinkReader, LinkSender, linkHello, localScope, parseLinkAddress, parseLocalAddress, type LinkSink } from './relayLink.js'
import { RELAY_LENGTH_BYTES, RelayOutbox } from './wire.js'
import { WriteBatch } from '../../core/dataplane/writeBatch.js'

const KEY = Buffer.alloc(16, 7)
const quiet = pino({ level: 'silent' })

/** What a sink got: messages by sender, and malformed streams. */
const recorder = () => {
  const got: Array<{ from: string; message: number[] }> = []
  const malformed: Array<string | null> = []
  let wake: (() => void) | null = null
  const sink: LinkSink = {
    linkIn: (from, message) => {
      got.push({ from, message: [...message] })
      wake?.()
    },
    linkMalformed: (from) => {
      malformed.push(from)
      wake?.()
    },
  }
  /** Resolves once `ok()` holds, checked at each message. */
  const until = async (ok: () => boolean) => {
    while (!ok()) await new Promise<void>((resolve) => (wake = resolve))
  }
  return { sink, got, malformed, until }
}

/** A relay message as an outbox makes it, with its length in front (frames [tag, sourceId, bytes]). */
const framedOf = (...frames: Array<[number, number, number[]]>): Uint8Array => {
  let out: Uint8Array | null = null
  const outbox = new RelayOutbox((framed) => (out = framed), new WriteBatch())
  for (const [tag, sourceId, bytes] of frames) outbox.append(tag, sourceId, Uint8Array.from(bytes))
  outbox.flush()
  return out!
}

const closers: Array<() => void> = []
afterEach(() => closers.splice(0).forEach((f) => f()))

describe('LinkReader', () => {
  it('reads the hello and each message whole, in order, when the stream is cut at every byte', () => {
    const { sink, got } = recorder()
    const socket = { on: () => {}, destroy: () => {} } as unknown as import('node:net').Socket
    const reader = new LinkReader(socket, sink, KEY)
    const one = framedOf([1, 2, [0x80, 1, 2, 3]])
    const two = framedOf([3, 4, [0x81, 9]], [5, 6, [0x82, 7, 7]])
    const stream = Buffer.concat([linkHello('node-a', KEY), one, two])
    for (let i = 0; i < stream.length; i++) reader.read(stream.subarray(i, i + 1))
    expect(got).toEqual([
      { from: 'node-a', message: [...one.subarray(RELAY_LENGTH_BYTES)] },
      { from: 'node-a', message: [...two.subarray(RELAY_LENGTH_BYTES)] },
    ])
  })

  it('closes a stream that does not open with the hello, whose hello lacks the key, or names a length no message has', () => {
    const message = framedOf([1, 2, [0x80, 1]])
    for (const bad of [
      Buffer.from('GET / HTTP/1.1\r\n\r\n'),
      Buffer.concat([linkHello('a', KEY), Buffer.from([0, 1, 0, 0])]),
      Buffer.concat([linkHello('a', Buffer.alloc(16, 8)), message]),
    ]) {
      const { sink, malformed, got } = recorder()
      let destroyed = false
      const socket = { on: () => {}, destroy: () => (destroyed = true) } as unknown as import('node:net').Socket
      new LinkReader(socket, sink, KEY).read(bad)
      expect(got).toEqual([])
      expect(malformed).toHaveLength(1)
      expect(destroyed).toBe(true)
    }
  })
})

describe('parseLinkAddress', () => {
  it('reads host:port/key and [v6]:port/key, and nothing else', () => {
    const hex = KEY.toString('hex')
    expect(parseLinkAddress(`127.0.0.1:4000/${hex}`)).toEqual({ host: '127.0.0.1', port: 4000, key: KEY })
    expect(parseLinkAddress(`[::1]:4000/${hex}`)).toEqual({ host: '::1', port: 4000, key: KEY })
    expect(parseLinkAddress('127.0.0.1:4000')).toBeNull()
    expect(parseLinkAddress(`127.0.0.1:4000/${hex.slice(2)}`)).toBeNull()
    expect(parseLinkAddress('127.0.0.1')).toBeNull()
    expect(parseLinkAddress(`h:0/${hex}`)).toBeNull()
  })
})

describe('a link between a sender and a listener', () => {
  it('carries messages in order; cut, the sender says so and refuses messages (they go to NATS); dialled again, it carries them again', async () => {
    const { sink, got, until } = recorder()
    const listener = new LinkListener(sink)
    closers.push(() => listener.close())
    const address = await listener.listen('127.0.0.1')
    const changes: boolean[] = []
    let changed: (() => void) | null = null
    const sender = new LinkSender('a', 'b', quiet, (_peer, up) => {
      changes.push(up)
      changed?.()
    })
    closers.push(() => sender.close())
    const next = () => new Promise<void>((resolve) => (changed = resolve))

    expect(sender.send(framedOf([1, 1, [0x80, 0]]))).toBe(false) // not dialled: NATS
    const up = next()
    sender.dial(address)
    await up
    const messages = Array.from({ length: 200 }, (_, i) => framedOf([1, 1, [0x80, i & 0xff, i >> 8]]))
    for (const m of messages) expect(sender.send(m)).toBe(true)
    await until(() => got.length === messages.length)
    expect(got.map((g) => g.message)).toEqual(messages.map((m) => [...m.subarray(RELAY_LENGTH_BYTES)]))
    expect(got.every((g) => g.from === 'a')).toBe(true)

    const down = next()
    listener.dropAll()
    await down
    expect(changes).toEqual([true, false])
    expect(sender.send(framedOf([1, 1, [0x80, 0]]))).toBe(false)

    const again = next()
    sender.dial(address)
    await again
    expect(sender.send(framedOf([1, 1, [0x80, 0xaa]]))).toBe(true)
    await until(() => got.length === messages.length + 1)
    expect(got.at(-1)!.message.slice(-2)).toEqual([0x80, 0xaa])
    expect(sender.messages).toBe(messages.length + 1)
    expect(sender.losses).toBe(1)
  })

  it('closes a connection whose hello lacks the key the listener advertised, and takes none of its messages', async () => {
    const { sink, got, malformed, until } = recorder()
    const listener = new LinkListener(sink)
    closers.push(() => listener.close())
    const { port, key } = parseLinkAddress(await listener.listen('127.0.0.1'))!
    const wrong = Buffer.from(key.map((b) => b ^ 1))
    const socket = connect(port, '127.0.0.1')
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()))
    socket.on('error', () => {})
    socket.write(Buffer.concat([linkHello('intruder', wrong), framedOf([1, 1, [0x80, 1, 2]])]))
    await closed
    await until(() => malformed.length === 1)
    expect(got).toEqual([])
  })

  it('a refused dial leaves the link down, with nothing told', async () => {
    // A port that was free a moment ago and is closed now: the dial is refused.
    const listener = new LinkListener(recorder().sink)
    const address = await listener.listen('127.0.0.1')
    listener.close()
    let told = 0
    const sender = new LinkSender('a', 'b', quiet, () => told++)
    closers.push(() => sender.close())
    const refused = new Promise<void>((resolve) => {
      const probe = connect(parseLinkAddress(address)!.port, '127.0.0.1')
      probe.on('error', () => resolve())
      probe.on('connect', () => (probe.destroy(), resolve()))
    })
    sender.dial(address)
    await refused
    expect(sender.isUp).toBe(false)
    expect(sender.send(framedOf([1, 1, [0x80, 0]]))).toBe(false)
    expect(told).toBe(0)
  })

  it('links over the Unix socket when the listener advertises one in this scope, over TCP when it is not reachable', async () => {
    const { sink, got, malformed, until } = recorder()
    const listener = new LinkListener(sink)
    closers.push(() => listener.close())
    const address = await listener.listen('127.0.0.1')
    const local = await listener.listenLocal()
    expect(local).toMatch(/^[0-9a-f-]{36}:\d+\/[0-9a-f]{32}$/)
    expect(local!.startsWith(`${localScope()}/`)).toBe(true)
    expect(parseLocalAddress(local)).toBe(local!.slice(-32))

    /** A sender named `id`, dialled with `advertised` as the listener's local address; resolves once its link is up. */
    const linked = (id: string, advertised: string | null) => {
      let up: () => void = () => {}
      const sender = new LinkSender(id, 'b', quiet, (_peer, isUp) => isUp && up())
      closers.push(() => sender.close())
      return new Promise<LinkSender>((resolve) => {
        up = () => resolve(sender)
        sender.dial(address, advertised)
      })
    }
    const sender = await linked('a', local)
    expect(sender.isLocal).toBe(true)
    expect(sender.send(framedOf([1, 1, [0x80, 1]]))).toBe(true)
    await until(() => got.length === 1)
    expect(got[0]).toEqual({ from: 'a', message: [...framedOf([1, 1, [0x80, 1]]).subarray(RELAY_LENGTH_BYTES)] })

    // A name nobody listens on in this scope: the dial fails and the sender links over TCP.
    const other = await linked('c', `${localScope()}/${'0'.repeat(32)}`)
    expect(other.isUp).toBe(true)
    expect(other.isLocal).toBe(false)
    expect(other.send(framedOf([1, 1, [0x80, 2]]))).toBe(true)
    await until(() => got.length === 2)
    expect(got[1]!.from).toBe('c')
    expect(listener.accepted).toBe(2)

    // Anyone in the namespace can reach the Unix socket: without the key, it is closed like on TCP.
    const { key } = parseLinkAddress(address)!
    const intruder = connect({ path: `\0hark-relay-${parseLocalAddress(local)}` })
    const closed = new Promise<void>((resolve) => intruder.on('close', () => resolve()))
    intruder.on('error', () => {})
    intruder.write(Buffer.concat([linkHello('intruder', Buffer.from(key.map((b) => b ^ 1))), framedOf([1, 1, [0x80, 3]])]))
    await closed
    await until(() => malformed.length === 1)
    expect(got).toHaveLength(2)
  })
})

describe('parseLocalAddress', () => {
  it('names a listener only in this process\'s scope', () => {
    const name = 'ab'.repeat(16)
    expect(parseLocalAddress(`${localScope()}/${name}`)).toBe(name)
    expect(parseLocalAddress(`00000000-0000-0000-0000-000000000000:1/${name}`)).toBeNull()
    expect(parseLocalAddress(`${localScope()}/${name.slice(2)}`)).toBeNull()
    expect(parseLocalAddress(null)).toBeNull()
    expect(parseLocalAddress('')).toBeNull()
  })
})
