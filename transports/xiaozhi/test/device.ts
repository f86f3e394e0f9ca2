/**
 * A xiaozhi-esp32 device emulator for tests and the bench, written from the firmware's protocol
 * documents (docs/websocket.md, docs/mcp-protocol.md, main/ota.cc's request shape), not from any
 * server: the OTA poll with Device-Id / Client-Id and the board JSON, the activation poll, the
 * WebSocket with Authorization / Protocol-Version / Device-Id / Client-Id headers, the hello
 * exchange, listen / abort / mcp / goodbye, and Opus audio in 60 ms frames framed by binary
 * protocol 1, 2 or 3 — both ways. What arrives is kept in inboxes, in arrival order.
 */
import { request } from 'node:http'
import { Decoder, Encoder } from '@evan/opus'
import WebSocket from 'ws'
import { Inbox } from '../../../core/test/helpers.js'
import { concat } from '../../../core/test/speech.js'
import { opusPacketMs } from '../opusPacket.js'

export type ProtocolVersion = 1 | 2 | 3

export interface DeviceIdentity {
  /** The MAC address (Device-Id). */
  readonly mac: string
  /** The install UUID (Client-Id). */
  readonly uuid: string
  readonly firmware?: string
}

export interface HttpAnswer<T = Record<string, unknown>> {
  readonly status: number
  readonly body: T
}

/** The board JSON the firmware posts (GetSystemInfoJson), trimmed to what a server reads. */
const boardJson = (d: DeviceIdentity) =>
  JSON.stringify({
    version: 2,
    language: 'en-US',
    flash_size: 16777216,
    mac_address: d.mac,
    uuid: d.uuid,
    chip_model_name: 'esp32s3',
    application: { name: 'xiaozhi', version: d.firmware ?? '2.4.2', compile_time: '2026-07-18T10:00:00Z', idf_version: 'v5.5' },
    partition_table: [{ label: 'nvs', type: 1, subtype: 2, address: 36864, size: 16384 }],
    ota: { label: 'ota_0' },
    board: { type: 'bread-compact-wifi', name: 'bread-compact-wifi', ssid: 'lab', rssi: -50, channel: 6, ip: '192.168.1.20', mac: d.mac },
  })

const post = (url: string, d: DeviceIdentity, body: string, extra: Record<string, string> = {}): Promise<HttpAnswer> =>
  new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        headers: {
          'Activation-Version': '1',
          'Device-Id': d.mac,
          'Client-Id': d.uuid,
          'User-Agent': `bread-compact-wifi/${d.firmware ?? '2.4.2'}`,
          'Accept-Language': 'en-US',
          'Content-Type': 'application/json',
          'Content-Length': String(Buffer.byteLength(body)),
          ...extra,
        },
      },
      (res) => {
        let text = ''
        res.on('data', (c: Buffer) => (text += c))
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} }))
        res.on('error', reject)
      },
    )
    req.on('error', reject)
    req.end(body)
  })

/** `POST <ota_url>` as the firmware does at boot. */
export const pollOta = (otaUrl: string, d: DeviceIdentity, extra: Record<string, string> = {}) => post(otaUrl, d, boardJson(d), extra)

/** `POST <ota_url>activate` (Activation-Version 1: an empty JSON object). */
export const pollActivation = (otaUrl: string, d: DeviceIdentity) => post(otaUrl.endsWith('/') ? `${otaUrl}activate` : `${otaUrl}/activate`, d, '{}')

export interface JsonMessage {
  readonly type: string
  readonly [key: string]: unknown
}

export interface ConnectOptions {
  readonly url: string
  readonly token: string
  readonly version?: ProtocolVersion
  readonly device: DeviceIdentity
  /** Trusted CA for wss:// (the engine's self-signed certificate). */
  readonly ca?: string
  /** Send the hello (default true). */
  readonly hello?: boolean
  /** Extra or replacing headers. */
  readonly headers?: Record<string, string>
  /** Answer the server's pings (default true; false plays a device that went away without a word). */
  readonly autoPong?: boolean
}

export interface Closed {
  readonly code: number
  readonly reason: string
}

/** A tool the emulated device offers over MCP. */
export interface DeviceTool {
  readonly description: string
  readonly inputSchema: Readonly<Record<string, unknown>>
  /** The text result of a call. */
  call(args: Record<string, unknown>): string
  /** Never answer (a tool that hangs). */
  readonly hang?: boolean
}

export const FRAME_MS = 60
const FRAME_SAMPLES = 16 * FRAME_MS

export class XiaozhiDevice {
  readonly messages = new Inbox<JsonMessage>()
  readonly audio = new Inbox<Uint8Array>()
  /** Every message in arrival order: JSON by type (`tts:start`…), audio as 'audio'. */
  readonly order: string[] = []
  readonly closed: Promise<Closed>
  sessionId = ''
  serverAudio: { sample_rate: number; frame_duration: number } | null = null
  private readonly encoder = new Encoder({ channels: 1, sample_rate: 16000, application: 'voip' })
  private timestamp = 0
  /** Where each JSON message stands in `order`. */
  private readonly positions = new WeakMap<JsonMessage, number>()
  private barriers = 0

  private constructor(
    readonly ws: WebSocket,
    readonly version: ProtocolVersion,
  ) {
    this.closed = new Promise((resolve) => ws.once('close', (code, reason) => resolve({ code, reason: reason.toString() })))
    ws.on('message', (data: Buffer, isBinary) => {
      if (isBinary) {
        const packet = this.unwrap(new Uint8Array(data.buffer, data.byteOffset, data.byteLength))
        this.order.push('audio')
        this.audio.push(packet)
        return
      }
      const message = JSON.parse(data.toString()) as JsonMessage
      this.positions.set(message, this.order.length)
      this.order.push(message.type === 'tts' ? `tts:${String(message.state)}` : message.type)
      this.messages.push(message)
    })
    ws.on('error', () => undefined)
  }

  /** Open the WebSocket with the firmware's headers and, unless told not to, do the hello exchange. */
  static async connect(o: ConnectOptions): Promise<XiaozhiDevice> {
    const version = o.version ?? 1
    const ws = new WebSocket(o.url, {
      ca: o.ca,
      perMessageDeflate: false,
      autoPong: o.autoPong ?? true,
      headers: {
        Authorization: `Bearer ${o.token}`,
        'Protocol-Version': String(version),
        'Device-Id': o.device.mac,
        'Client-Id': o.device.uuid,
        ...o.headers,
      },
    })
    const device = new XiaozhiDevice(ws, version)
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve())
      ws.once('unexpected-response', (_req, res) => {
        let body = ''
        res.on('data', (d: Buffer) => (body += d))
        res.on('end', () => reject(Object.assign(new Error(`HTTP ${res.statusCode}`), { status: res.statusCode, body: body ? JSON.parse(body) : null })))
      })
      ws.once('error', reject)
    })
    if (o.hello !== false) await device.hello()
    return device
  }

  /** The refusal of an upgrade that must fail: its status and envelope. */
  static async refused(o: ConnectOptions): Promise<{ status: number; body: { error: { code: string; message: string } } }> {
    try {
      const d = await XiaozhiDevice.connect({ ...o, hello: false })
      d.ws.terminate()
    } catch (e) {
      const r = e as { status?: number; body?: { error: { code: string; message: string } } }
      if (r.status) return { status: r.status, body: r.body! }
      throw e
    }
    throw new Error('the upgrade was accepted')
  }

  /** The device's hello, then the server's (type hello, transport websocket), as the firmware waits for it. */
  async hello(features: Record<string, unknown> = { mcp: true }): Promise<JsonMessage> {
    this.sendJson({
      type: 'hello',
      version: this.version,
      features,
      transport: 'websocket',
      audio_params: { format: 'opus', sample_rate: 16000, channels: 1, frame_duration: FRAME_MS },
    })
    const hello = await this.message('hello', (m) => m.transport === 'websocket')
    this.sessionId = String(hello.session_id ?? '')
    const params = hello.audio_params as { sample_rate: number; frame_duration: number }
    this.serverAudio = { sample_rate: params.sample_rate, frame_duration: params.frame_duration ?? 60 }
    return hello
  }

  sendJson(message: Record<string, unknown>): void {
    this.ws.send(JSON.stringify(message))
  }

  listenStart(mode: 'auto' | 'manual' | 'realtime' = 'manual'): void {
    this.sendJson({ session_id: this.sessionId, type: 'listen', state: 'start', mode })
  }

  listenStop(): void {
    this.sendJson({ session_id: this.sessionId, type: 'listen', state: 'stop' })
  }

  abort(reason?: string): void {
    this.sendJson({ session_id: this.sessionId, type: 'abort', ...(reason ? { reason } : {}) })
  }

  mcp(payload: Record<string, unknown>): void {
    this.sendJson({ session_id: this.sessionId, type: 'mcp', payload })
  }

  /**
   * Answer the server's MCP requests as the firmware's McpServer does (docs/mcp-protocol.md):
   * `initialize`, `tools/list` (one page), `tools/call` with the tool's text result, or a
   * JSON-RPC error for an unknown method or tool. Each call is kept in `toolCalls`.
   */
  serveTools(tools: Readonly<Record<string, DeviceTool>>): void {
    this.ws.on('message', (data: Buffer, isBinary) => {
      if (isBinary) return
      const m = JSON.parse(data.toString()) as { type?: string; payload?: { id?: unknown; method?: string; params?: Record<string, unknown> } }
      if (m.type !== 'mcp' || !m.payload || typeof m.payload.id !== 'number') return
      const { id, method, params = {} } = m.payload
      const answer = (body: Record<string, unknown>) => this.mcp({ jsonrpc: '2.0', id, ...body })
      if (method === 'initialize') {
        answer({ result: { protocolVersion: '2024-11-05', capabilities: { tools: {} }, serverInfo: { name: 'xiaozhi-emulator', version: '2.4.2' } } })
      } else if (method === 'tools/list') {
        answer({ result: { tools: Object.entries(tools).map(([name, t]) => ({ name, description: t.description, inputSchema: t.inputSchema })) } })
      } else if (method === 'tools/call') {
        const name = String(params.name)
        const tool = tools[name]
        if (!tool) return answer({ error: { code: -32601, message: `Unknown tool: ${name}` } })
        const args = (params.arguments ?? {}) as Record<string, unknown>
        this.toolCalls.push({ name, arguments: args })
        if (tool.hang) return
        answer({ result: { content: [{ type: 'text', text: tool.call(args) }], isError: false } })
      } else {
        answer({ error: { code: -32601, message: `Method not implemented: ${String(method)}` } })
      }
    })
  }

  /** Tool calls the device received (serveTools), in order. */
  readonly toolCalls = new Inbox<{ name: string; arguments: Record<string, unknown> }>()

  /** One Opus packet, framed by the connection's binary protocol. */
  sendOpus(packet: Uint8Array): void {
    this.ws.send(this.wrap(packet))
    this.timestamp += FRAME_MS
  }

  /** Encode 16 kHz PCM into 60 ms Opus packets (the last one zero-padded). */
  encode(pcm: Int16Array): Uint8Array[] {
    const packets: Uint8Array[] = []
    for (let at = 0; at < pcm.length; at += FRAME_SAMPLES) {
      const frame = new Int16Array(FRAME_SAMPLES)
      frame.set(pcm.subarray(at, at + FRAME_SAMPLES))
      packets.push(this.encoder.encode(new Uint8Array(frame.buffer)))
    }
    return packets
  }

  /** Speak `pcm` in real time: one 60 ms packet every 60 ms, as the microphone produces them. */
  async speak(pcm: Int16Array): Promise<void> {
    const packets = this.encode(pcm)
    const start = performance.now()
    for (const [i, packet] of packets.entries()) {
      const wait = start + i * FRAME_MS - performance.now()
      if (wait > 0) await new Promise((r) => setTimeout(r, wait))
      this.sendOpus(packet)
    }
  }

  /** The next JSON message of `type` (matching `predicate`). */
  message(type: string, predicate: (m: JsonMessage) => boolean = () => true, timeoutMs = 5000): Promise<JsonMessage> {
    return this.messages.next((m) => m.type === type && predicate(m), timeoutMs, `a ${type} message`)
  }

  /**
   * A round trip on this connection: the server answers a message of an unknown type with an
   * `error`, written after whatever it queued for the device before. Resolves with the index of
   * that answer in `order`: everything before it was sent before the server read this message.
   */
  async barrier(): Promise<number> {
    const type = `barrier-${++this.barriers}`
    this.sendJson({ session_id: this.sessionId, type })
    const answer = await this.message('error', (m) => typeof m.message === 'string' && m.message.includes(`"${type}"`))
    return this.positions.get(answer)!
  }

  /** Index in `order` of the n-th (0-based) occurrence of `what`, or -1. */
  indexOf(what: string, n = 0): number {
    let seen = -1
    for (let i = 0; i < this.order.length; i++) if (this.order[i] === what && ++seen === n) return i
    return -1
  }

  /**
   * The audio packets of the n-th reply: between the n-th `tts:start` and the `tts:stop` after it.
   * Resolves once that `tts:stop` arrived.
   */
  async reply(n = 0, timeoutMs = 10_000): Promise<Uint8Array[]> {
    const stopAfterStart = () => {
      const start = this.indexOf('tts:start', n)
      return start >= 0 && this.order.indexOf('tts:stop', start) > start
    }
    await this.messages.next(() => stopAfterStart(), timeoutMs, `reply ${n}`)
    const start = this.indexOf('tts:start', n)
    const stop = this.order.indexOf('tts:stop', start)
    const before = this.order.slice(0, start).filter((o) => o === 'audio').length
    const count = this.order.slice(start, stop).filter((o) => o === 'audio').length
    return this.audio.items.slice(before, before + count)
  }

  /** Decode packets as the firmware does: one decoder at the server's rate, each packet at most one frame. */
  decode(packets: ReadonlyArray<Uint8Array>): Int16Array {
    const rate = this.serverAudio?.sample_rate ?? 16000
    const decoder = new Decoder({ channels: 1, sample_rate: rate as 16000 })
    return concat(
      ...packets.map((p) => {
        const bytes = decoder.decode(p)
        return new Int16Array(bytes.buffer, bytes.byteOffset, bytes.byteLength >> 1)
      }),
    )
  }

  /** Durations (ms) of packets, as a firmware before v2.0.0 needs them: each the announced frame. */
  static durations(packets: ReadonlyArray<Uint8Array>): Array<number | null> {
    return packets.map(opusPacketMs)
  }

  close(): void {
    this.ws.close(1000)
  }

  private wrap(packet: Uint8Array): Uint8Array {
    if (this.version === 1) return packet
    if (this.version === 2) {
      const out = new Uint8Array(16 + packet.length)
      const view = new DataView(out.buffer)
      view.setUint16(0, 2)
      view.setUint16(2, 0)
      view.setUint32(4, 0)
      view.setUint32(8, this.timestamp)
      view.setUint32(12, packet.length)
      out.set(packet, 16)
      return out
    }
    const out = new Uint8Array(4 + packet.length)
    out[0] = 0
    out[1] = 0
    out[2] = packet.length >> 8
    out[3] = packet.length & 0xff
    out.set(packet, 4)
    return out
  }

  private unwrap(data: Uint8Array): Uint8Array {
    if (this.version === 1) return data.slice()
    if (this.version === 2) {
      const view = new DataView(data.buffer, data.byteOffset, data.byteLength)
      const size = view.getUint32(12)
      if (view.getUint16(0) !== 2 || view.getUint16(2) !== 0 || size !== data.length - 16) throw new Error('bad binary protocol 2 header from the server')
      return data.slice(16)
    }
    const size = (data[2]! << 8) | data[3]!
    if (data[0] !== 0 || size !== data.length - 4) throw new Error('bad binary protocol 3 header from the server')
    return data.slice(4)
  }
}
