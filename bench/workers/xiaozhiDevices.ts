/**
 * xiaozhi-devices, the load: emulated xiaozhi-esp32 devices (the firmware's headers, hello,
 * binary protocol 1, 60 ms Opus frames) in a speak/reply cycle with the echo agent of their room.
 * Each device: `listen start`, 300 ms of speech in 60 ms packets in real time, `listen stop`; the
 * echo answers (`tts start`, packets, `tts stop`); a short pause; again. Recorded per turn: from
 * sending `listen stop` to the first packet of the reply (the engine's added latency: the echo
 * answers at the end of the turn, it waits for nothing). One timer drives every device.
 * IPC: start {url, devices} → ready {connected, failed, connectMs}; go {warmupUntilUs, endUs} → result.
 */
import { Encoder } from '@evan/opus'
import WebSocket from 'ws'
import { monotonicUs } from '../harness/clock.js'
import { createLatencyHistogram, encodeHistogram, recordUs } from '../harness/histogram.js'
import { serveWorker, type WorkerMessage } from '../harness/worker.js'

export interface XiaozhiStart extends WorkerMessage {
  readonly type: 'start'
  readonly url: string
  readonly devices: ReadonlyArray<{ readonly token: string; readonly mac: string }>
}
export interface XiaozhiGo extends WorkerMessage {
  readonly type: 'go'
  readonly warmupUntilUs: number
  readonly endUs: number
}
export interface XiaozhiReady extends WorkerMessage {
  readonly type: 'ready'
  readonly connected: number
  readonly failed: number
  readonly connectMs: number
}
export interface XiaozhiResult extends WorkerMessage {
  readonly type: 'result'
  /** Replies whose first packet arrived inside the window. */
  readonly turns: number
  /** Turns inside the window with no reply within REPLY_TIMEOUT_MS. */
  readonly missed: number
  readonly histogram: string
  /** Devices still connected at the end. */
  readonly connected: number
  readonly packetsReceived: number
}

const FRAME_MS = 60
const SPEECH_PACKETS = 5
/** Pause between the end of a reply and the next turn. */
const PAUSE_MS = 200
const REPLY_TIMEOUT_MS = 5000
const TICK_MS = 10
const CONNECT_CONCURRENCY = 16

/** 60 ms packets of a 440 Hz tone, encoded once and sent by every device. */
const speech = (): Uint8Array[] => {
  const encoder = new Encoder({ channels: 1, sample_rate: 16000, application: 'voip' })
  const out: Uint8Array[] = []
  for (let p = 0; p < SPEECH_PACKETS; p++) {
    const pcm = new Int16Array(16 * FRAME_MS)
    for (let k = 0; k < pcm.length; k++) pcm[k] = Math.round(Math.sin((2 * Math.PI * 440 * (p * pcm.length + k)) / 16000) * 0.3 * 32767)
    out.push(encoder.encode(new Uint8Array(pcm.buffer)))
  }
  return out
}

type Phase = 'idle' | 'speaking' | 'waiting' | 'playing'

class Device {
  phase: Phase = 'idle'
  nextAtUs = 0
  packet = 0
  stopSentUs = 0
  sessionId = ''
  open = false

  constructor(readonly ws: WebSocket) {}

  json(message: Record<string, unknown>): void {
    this.ws.send(JSON.stringify({ session_id: this.sessionId, ...message }))
  }
}

let devices: Device[] = []
let ticker: NodeJS.Timeout | undefined
const packets = speech()

const connect = (url: string, token: string, mac: string): Promise<Device> =>
  new Promise((resolve, reject) => {
    const ws = new WebSocket(url, {
      rejectUnauthorized: false,
      perMessageDeflate: false,
      headers: { Authorization: `Bearer ${token}`, 'Protocol-Version': '1', 'Device-Id': mac, 'Client-Id': `bench-${mac}` },
    })
    const device = new Device(ws)
    const timer = setTimeout(() => reject(new Error('no server hello within 10 s')), 10_000)
    ws.once('error', (e) => {
      clearTimeout(timer)
      reject(e)
    })
    ws.once('open', () =>
      ws.send(JSON.stringify({
        type: 'hello', version: 1, features: { mcp: true }, transport: 'websocket',
        audio_params: { format: 'opus', sample_rate: 16000, channels: 1, frame_duration: FRAME_MS },
      })),
    )
    ws.on('message', function first(data: Buffer, isBinary) {
      if (isBinary) return
      const m = JSON.parse(data.toString()) as { type: string; session_id?: string }
      if (m.type !== 'hello') return
      ws.off('message', first)
      clearTimeout(timer)
      device.sessionId = m.session_id ?? ''
      device.open = true
      ws.on('close', () => (device.open = false))
      resolve(device)
    })
  })

serveWorker({
  deadlineMs: 30 * 60_000,
  onStop: () => {
    clearInterval(ticker)
    for (const d of devices) d.ws.terminate()
  },
  onMessage: async (m, send) => {
    if (m.type === 'start') {
      const start = m as XiaozhiStart
      const t0 = performance.now()
      let failed = 0
      const queue = [...start.devices]
      const workers = Array.from({ length: CONNECT_CONCURRENCY }, async () => {
        for (let next = queue.shift(); next; next = queue.shift()) {
          try {
            devices.push(await connect(start.url, next.token, next.mac))
          } catch {
            failed++
          }
        }
      })
      await Promise.all(workers)
      send({ type: 'ready', connected: devices.length, failed, connectMs: performance.now() - t0 } satisfies XiaozhiReady)
      return
    }
    if (m.type !== 'go') return
    const { warmupUntilUs, endUs } = m as XiaozhiGo
    const histogram = createLatencyHistogram()
    let turns = 0
    let missed = 0
    let packetsReceived = 0
    const inWindow = (us: number) => us >= warmupUntilUs && us <= endUs
    // Devices start their first turn spread over one turn's length, not all at once.
    const now0 = monotonicUs()
    devices.forEach((d, i) => {
      d.nextAtUs = now0 + ((i * 1000 * FRAME_MS * SPEECH_PACKETS) / Math.max(1, devices.length)) * 4
      d.ws.on('message', (data: Buffer, isBinary) => {
        if (isBinary) {
          packetsReceived++
          if (d.phase !== 'waiting') return
          const at = monotonicUs()
          if (inWindow(d.stopSentUs)) {
            recordUs(histogram, at - d.stopSentUs)
            turns++
          }
          d.phase = 'playing'
          return
        }
        if (data.length > 200) return
        const msg = JSON.parse(data.toString()) as { type: string; state?: string }
        if (msg.type === 'tts' && msg.state === 'stop' && (d.phase === 'playing' || d.phase === 'waiting')) {
          d.phase = 'idle'
          d.nextAtUs = monotonicUs() + PAUSE_MS * 1000
        }
      })
    })
    await new Promise<void>((resolve) => {
      ticker = setInterval(() => {
        const now = monotonicUs()
        if (now > endUs) {
          clearInterval(ticker)
          resolve()
          return
        }
        for (const d of devices) {
          if (!d.open) continue
          if (d.phase === 'idle' && now >= d.nextAtUs) {
            d.json({ type: 'listen', state: 'start', mode: 'manual' })
            d.phase = 'speaking'
            d.packet = 0
            d.nextAtUs = now
          }
          if (d.phase === 'speaking') {
            while (d.packet < packets.length && now >= d.nextAtUs) {
              d.ws.send(packets[d.packet++]!)
              d.nextAtUs += FRAME_MS * 1000
            }
            if (d.packet === packets.length) {
              d.json({ type: 'listen', state: 'stop' })
              d.stopSentUs = monotonicUs()
              d.phase = 'waiting'
            }
          } else if (d.phase === 'waiting' && now - d.stopSentUs > REPLY_TIMEOUT_MS * 1000) {
            if (inWindow(d.stopSentUs)) missed++
            d.phase = 'idle'
            d.nextAtUs = now
          } else if (d.phase === 'playing' && now - d.stopSentUs > 4 * REPLY_TIMEOUT_MS * 1000) {
            // A reply that never said tts stop: start over rather than hang.
            d.phase = 'idle'
            d.nextAtUs = now
          }
        }
      }, TICK_MS)
    })
    send({
      type: 'result',
      turns,
      missed,
      histogram: encodeHistogram(histogram),
      connected: devices.filter((d) => d.open).length,
      packetsReceived,
    } satisfies XiaozhiResult)
  },
})
