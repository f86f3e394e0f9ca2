/**
 * The direct relay link (spec/cluster.md, The relay link): audio from this node to another over a
 * TCP connection of their own, so a relayed message is one write here and one read there, with no
 * NATS server and no NATS client parse in between. Each node listens on its `host` at a port the
 * kernel picks and advertises `host:port/key` in its heartbeat (the key: 16 random bytes of this
 * listener's, known only to those who hear the heartbeats on NATS); a node with frames for a peer
 * connects to the peer's address (one connection per direction) and sends, after a hello naming
 * itself and carrying the listener's key (a stream without it is closed), each
 * relay message as `u32 length | message` (the message exactly as on NATS, wire.ts). While a link is
 * not up (connecting, refused, lost, backed up), that peer's messages go over NATS as before; a lost
 * link is dialled again at the next lease tick.
 *
 * Two nodes on one machine (`hark start --nodes N`, or several `hark start` side by side) link over
 * a Unix socket instead: the listener also listens on an abstract socket (Linux) and advertises its
 * name with the scope it can be reached in (`localScope`: the kernel's boot and the network
 * namespace, which together decide who sees an abstract socket); a dialler in the same scope
 * connects there, with the same hello and key, and falls back to TCP if that fails. A Unix socket
 * skips the loopback TCP stack (segments, ACKs, the softirq that carries them), which on the bench
 * machine was a large part of a relay message's cost.
 *
 * Per message on the sending side: one `write` of the outbox's copy. On the receiving side: the
 * socket's read buffer, walked in place (`relayIn`, as for a NATS message); a message split across
 * reads is put together once.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto'
import { readFileSync, readlinkSync } from 'node:fs'
import { connect, createServer, type Server, type Socket } from 'node:net'
import type { Logger } from '../../core/log.js'
import { RELAY_HEADER_BYTES, RELAY_LENGTH_BYTES, RELAY_MESSAGE_BYTES } from './wire.js'

/** `HRL1`: the first bytes a link carries, then u8 n, the sender's node id (n ASCII bytes) and the listener's key. */
export const LINK_MAGIC = 0x48524c31
/** Bytes of a listener's key. */
export const LINK_KEY_BYTES = 16
/** Bytes a link may hold unsent before it counts as stalled: closed, its peer's audio back on NATS. */
export const LINK_BACKLOG_BYTES = 256 * 1024

/** The hello a link opens with: magic, the sending node's id, then the key the listener advertised. */
export const linkHello = (nodeId: string, key: Uint8Array): Buffer => {
  const id = Buffer.from(nodeId, 'latin1')
  const hello = Buffer.alloc(5 + id.length + LINK_KEY_BYTES)
  hello.writeUInt32BE(LINK_MAGIC, 0)
  hello[4] = id.length
  id.copy(hello, 5)
  hello.set(key.subarray(0, LINK_KEY_BYTES), 5 + id.length)
  return hello
}

/** `host:port/key` as a heartbeat advertises it (IPv6 hosts in brackets, the key in hex); null when it cannot be read. */
export const parseLinkAddress = (address: string): { host: string; port: number; key: Buffer } | null => {
  const m = /^(?:\[([^\]]+)\]|([^:/]+)):(\d{1,5})\/([0-9a-f]{32})$/.exec(address)
  if (!m) return null
  const port = Number(m[3])
  return port > 0 && port < 65536 ? { host: (m[1] ?? m[2])!, port, key: Buffer.from(m[4]!, 'hex') } : null
}

let scope: string | null | undefined
/**
 * Where an abstract Unix socket of this process is visible: `<boot id>:<network namespace>` (Linux;
 * both from /proc), or null where there are no abstract sockets or they cannot be told apart.
 */
export const localScope = (): string | null => {
  if (scope !== undefined) return scope
  scope = null
  if (process.platform !== 'linux') return scope
  try {
    const boot = readFileSync('/proc/sys/kernel/random/boot_id', 'latin1').trim()
    const net = /^net:\[(\d+)\]$/.exec(readlinkSync('/proc/self/ns/net'))?.[1]
    if (/^[0-9a-f-]{36}$/.test(boot) && net !== undefined) scope = `${boot}:${net}`
  } catch {
    // No /proc: TCP only.
  }
  return scope
}

/** `<scope>/<name>` as a heartbeat advertises a local listener; the name (hex) when it is reachable from here, else null. */
export const parseLocalAddress = (local: string | null | undefined): string | null => {
  if (!local) return null
  const m = /^([0-9a-f-]{36}:\d+)\/([0-9a-f]{32})$/.exec(local)
  return m !== null && m[1] === localScope() ? m[2]! : null
}

/** The abstract socket path (leading NUL) of a local listener's name. */
const localPath = (name: string): string => `\0hark-relay-${name}`

/** What a link's receiving end hands each message to (relay.ts). */
export interface LinkSink {
  linkIn(from: string, message: Uint8Array): void
  /** A link sent something that is not a hello with this node's key, or a message (the connection is closed). */
  linkMalformed(from: string | null): void
}

/**
 * The receiving end of one link: a hello, then length-prefixed messages. A message is walked where
 * it lies in the socket's read buffer; only one split across reads is copied (into `pending`).
 */
export class LinkReader {
  private from: string | null = null
  private pending: Buffer | null = null

  constructor(
    private readonly socket: Socket,
    private readonly sink: LinkSink,
    /** The listener's key: a hello without it is refused. */
    private readonly key: Buffer,
  ) {
    socket.on('data', (chunk: Buffer) => this.read(chunk))
  }

  /** Hot path: one read of the socket. */
  read(chunk: Buffer): void {
    let data = chunk
    if (this.pending !== null) {
      data = Buffer.concat([this.pending, chunk])
      this.pending = null
    }
    let at = 0
    if (this.from === null) {
      if (data.length >= 4 && data.readUInt32BE(0) !== LINK_MAGIC) return this.malformed()
      if (data.length < 5) return this.keep(data, 0)
      const n = data[4]!
      if (n === 0) return this.malformed()
      if (data.length < 5 + n + LINK_KEY_BYTES) return this.keep(data, 0)
      if (!timingSafeEqual(data.subarray(5 + n, 5 + n + LINK_KEY_BYTES), this.key)) return this.malformed()
      this.from = data.toString('latin1', 5, 5 + n)
      at = 5 + n + LINK_KEY_BYTES
    }
    const from = this.from
    while (at + RELAY_LENGTH_BYTES <= data.length) {
      const length = data.readUInt32BE(at)
      if (length < RELAY_HEADER_BYTES + 2 || length > RELAY_MESSAGE_BYTES) return this.malformed()
      const end = at + RELAY_LENGTH_BYTES + length
      if (end > data.length) break
      this.sink.linkIn(from, data.subarray(at + RELAY_LENGTH_BYTES, end))
      at = end
    }
    if (at < data.length) this.keep(data, at)
  }

  private keep(data: Buffer, at: number): void {
    // A copy: the rest of a read buffer would otherwise keep all of it alive.
    this.pending = Buffer.from(data.subarray(at))
  }

  private malformed(): void {
    this.sink.linkMalformed(this.from)
    this.pending = null
    this.socket.destroy()
  }
}

/** This node's listener for the links of the other nodes. */
export class LinkListener {
  private readonly server: Server
  /** The abstract Unix socket for nodes on this machine (null: not listening there). */
  private local: Server | null = null
  private readonly sockets = new Set<Socket>()
  /** What a dialler must present: advertised with the address, over NATS only. */
  private readonly key = randomBytes(LINK_KEY_BYTES)

  constructor(private readonly sink: LinkSink) {
    this.server = createServer({ noDelay: true }, this.accept)
  }

  private readonly accept = (socket: Socket): void => {
    this.sockets.add(socket)
    socket.on('close', () => this.sockets.delete(socket))
    socket.on('error', () => {}) // a peer gone mid-message: 'close' follows
    new LinkReader(socket, this.sink, this.key)
  }

  /**
   * Listen on an abstract Unix socket too, for nodes on this machine; resolves with what to
   * advertise (`<scope>/<name>`), or null where there is no scope or the listen failed (TCP only).
   */
  listenLocal(): Promise<string | null> {
    const at = localScope()
    if (at === null) return Promise.resolve(null)
    const name = randomBytes(16).toString('hex')
    const local = createServer(this.accept)
    return new Promise((resolve) => {
      local.once('error', () => resolve(null))
      local.listen({ path: localPath(name), exclusive: true }, () => {
        local.removeAllListeners('error')
        this.local = local
        resolve(`${at}/${name}`)
      })
    })
  }

  /** Listen on `host` at a port the kernel picks; resolves with the address to advertise (`host:port/key`). */
  listen(host: string): Promise<string> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject)
      // exclusive: in a node of `hark start --nodes N` (a Node cluster worker) listen(0) would
      // otherwise share one port among all the nodes, and a dial would reach any of them.
      this.server.listen({ port: 0, host, exclusive: true }, () => {
        this.server.off('error', reject)
        const { port } = this.server.address() as { port: number }
        const key = this.key.toString('hex')
        resolve(host.includes(':') ? `[${host}]:${port}/${key}` : `${host}:${port}/${key}`)
      })
    })
  }

  /** Links in from other nodes now (tests). */
  get accepted(): number {
    return this.sockets.size
  }

  /** Cut every link in: their senders fall back to NATS (tests; stop). */
  dropAll(): void {
    for (const socket of this.sockets) socket.destroy()
  }

  close(): void {
    this.server.close()
    this.local?.close()
    this.dropAll()
  }
}

/**
 * The sending end of the link to one peer. `send` writes a message when the link is up and returns
 * false otherwise, so the caller publishes it on NATS instead; `dial` (at a heartbeat and at each
 * lease tick) connects when the link is down and the peer advertises an address.
 */
export class LinkSender {
  private socket: Socket | null = null
  private up = false
  private address: string | null = null
  /** The peer's local listener name when it is on this machine (its heartbeat's `relayLocal`). */
  private local: string | null = null
  /** A dial of the local listener failed: TCP from now on (until the peer advertises another). */
  private localFailed = false
  private closed = false
  /** Messages the link carried; times it went down after being up. */
  messages = 0
  losses = 0

  constructor(
    private readonly nodeId: string,
    private readonly peer: string,
    private readonly log: Logger,
    /** Told when the link comes up or goes down (tests wait on it). */
    private readonly changed: (peer: string, up: boolean) => void = () => {},
  ) {}

  get isUp(): boolean {
    return this.up
  }

  /**
   * Connect to `address` unless a link to it is up or on its way (a new address replaces the old
   * link): to its local listener when it advertises one this process can reach (`local`), else
   * (or when that dial fails) over TCP.
   */
  dial(address: string | null, local: string | null = null): void {
    if (this.closed) return
    const name = address === null ? null : parseLocalAddress(local)
    if (address !== this.address || name !== this.local) {
      this.drop()
      this.localFailed = false
    }
    this.address = address
    this.local = name
    if (address === null || this.socket !== null) return
    const at = parseLinkAddress(address)
    if (at === null) return
    const viaLocal = name !== null && !this.localFailed
    const socket = viaLocal ? connect({ path: localPath(name) }) : connect({ host: at.host, port: at.port, noDelay: true })
    this.socket = socket
    let connected = false
    socket.on('connect', () => {
      if (this.socket !== socket) return
      connected = true
      socket.write(linkHello(this.nodeId, at.key))
      this.up = true
      const via = viaLocal ? 'unix' : 'tcp'
      this.log.info({ nodeId: this.nodeId, peer: this.peer, address, via }, 'cluster: relay link up; audio to this node leaves NATS')
      this.changed(this.peer, true)
    })
    socket.on('error', () => {}) // refused or reset: 'close' follows
    socket.on('close', () => {
      if (this.socket !== socket) return
      this.lost()
      if (viaLocal && !connected) {
        // Not reachable this way after all (another namespace with the same scope?): TCP now.
        this.localFailed = true
        this.dial(address, local)
      }
    })
  }

  /** The link in use runs over the peer's local (Unix) listener (tests, logs). */
  get isLocal(): boolean {
    return this.up && this.local !== null && !this.localFailed
  }

  /** Hot path: write one message (with its length prefix) on the link; false when it is not up. */
  send(framed: Uint8Array): boolean {
    if (!this.up) return false
    const socket = this.socket!
    if (socket.writableLength > LINK_BACKLOG_BYTES) {
      // The peer does not read: its audio goes back to NATS, the link is dialled again at a tick.
      socket.destroy()
      this.lost()
      return false
    }
    socket.write(framed)
    this.messages++
    return true
  }

  private lost(): void {
    const was = this.up
    this.up = false
    this.socket = null
    if (was) {
      this.losses++
      this.log.warn({ nodeId: this.nodeId, peer: this.peer }, 'cluster: relay link lost; audio to this node goes over NATS until it is back')
      this.changed(this.peer, false)
    }
  }

  private drop(): void {
    const socket = this.socket
    this.socket = null
    this.up = false
    socket?.destroy()
  }

  /** The peer was forgotten, or this node stops: no more dialling. */
  close(): void {
    this.closed = true
    this.drop()
  }
}
