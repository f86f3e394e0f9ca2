/**
 * A local stand-in for the OpenAI Realtime API (the one allowed mock: a third-party cloud). A real
 * `ws` server on 127.0.0.1 that speaks the protocol's WebSocket events: it checks the bearer key,
 * answers `session.update`, runs a simple energy VAD over appended 24 kHz audio (speech_started /
 * speech_stopped / committed), then streams a reply as `response.output_audio.delta` events —
 * optionally paced, so a reply can be interrupted — and honours `response.cancel`.
 */
import type { AddressInfo } from 'node:net'
import { WebSocketServer, type WebSocket } from 'ws'
import { Inbox } from '../../../core/test/helpers.js'

export interface FakeReply {
  /** Length of the reply's audio (a 24 kHz tone). */
  readonly audioMs: number
  readonly transcript: string
  /** Send one 100 ms delta every this many ms (0: all at once). */
  readonly paceMs?: number
}

export interface ClientEvent {
  readonly type: string
  readonly [key: string]: unknown
}

const RATE = 24_000
const CHUNK = 480 // 20 ms at 24 kHz
const SILENCE_TO_STOP_MS = 300

export class FakeRealtimeServer {
  readonly received = new Inbox<ClientEvent>()
  /** Samples of input audio appended so far. */
  appendedSamples = 0
  private readonly wss: WebSocketServer
  private turn = 0
  private timers = new Set<NodeJS.Timeout>()

  private constructor(
    wss: WebSocketServer,
    private readonly apiKey: string,
    private readonly reply: (turn: number) => FakeReply,
  ) {
    this.wss = wss
    wss.on('connection', (ws) => this.serve(ws))
  }

  static async start(apiKey: string, reply: (turn: number) => FakeReply): Promise<FakeRealtimeServer> {
    const wss = new WebSocketServer({
      host: '127.0.0.1',
      port: 0,
      verifyClient: (info, cb) => {
        if (!info.req.url?.startsWith('/v1/realtime?model=')) return cb(false, 404)
        if (info.req.headers.authorization !== `Bearer ${apiKey}`) return cb(false, 401)
        cb(true)
      },
    })
    await new Promise<void>((resolve) => wss.once('listening', () => resolve()))
    return new FakeRealtimeServer(wss, apiKey, reply)
  }

  get baseUrl(): string {
    return `ws://127.0.0.1:${(this.wss.address() as AddressInfo).port}/v1`
  }

  get key(): string {
    return this.apiKey
  }

  /** Drop every connection (the cloud went away). */
  dropAll(): void {
    for (const ws of this.wss.clients) ws.terminate()
  }

  async stop(): Promise<void> {
    for (const t of this.timers) clearInterval(t)
    this.dropAll()
    await new Promise<void>((resolve) => this.wss.close(() => resolve()))
  }

  private serve(ws: WebSocket): void {
    let seq = 0
    const send = (event: Record<string, unknown>) => ws.send(JSON.stringify({ event_id: `evt_${++seq}`, ...event }))
    let inSpeech = false
    let silentMs = 0
    let pending = new Int16Array(0)
    let streaming: { id: string; timer?: NodeJS.Timeout } | null = null
    send({ type: 'session.created', session: { type: 'realtime', id: 'sess_fake' } })

    const respond = () => {
      const n = ++this.turn
      const { audioMs, transcript, paceMs = 0 } = this.reply(n)
      const id = `resp_${n}`
      const item = `item_${n}`
      send({ type: 'response.created', response: { id, status: 'in_progress' } })
      const samples = Math.round((audioMs / 1000) * RATE)
      const chunks: string[] = []
      for (let at = 0; at < samples; at += RATE / 10) {
        const pcm = new Int16Array(Math.min(RATE / 10, samples - at))
        for (let i = 0; i < pcm.length; i++) pcm[i] = Math.round(Math.sin((2 * Math.PI * 330 * (at + i)) / RATE) * 0.3 * 32767)
        chunks.push(Buffer.from(pcm.buffer).toString('base64'))
      }
      const finish = (status: string) => {
        if (status === 'completed') {
          send({ type: 'response.output_audio.done', response_id: id, item_id: item })
          send({ type: 'response.output_audio_transcript.done', response_id: id, item_id: item, transcript })
        }
        send({ type: 'response.done', response: { id, status } })
        streaming = null
      }
      const delta = (b64: string) => send({ type: 'response.output_audio.delta', response_id: id, item_id: item, content_index: 0, delta: b64 })
      streaming = { id }
      if (paceMs === 0) {
        chunks.forEach(delta)
        finish('completed')
        return
      }
      const timer = setInterval(() => {
        const next = chunks.shift()
        if (next) delta(next)
        if (chunks.length === 0) {
          clearInterval(timer)
          this.timers.delete(timer)
          finish('completed')
        }
      }, paceMs)
      this.timers.add(timer)
      streaming.timer = timer
    }

    ws.on('message', (data) => {
      let event: ClientEvent
      try {
        event = JSON.parse(String(data)) as ClientEvent
      } catch {
        send({ type: 'error', error: { type: 'invalid_request_error', message: 'not JSON' } })
        return
      }
      this.received.push(event)
      switch (event.type) {
        case 'session.update':
          send({ type: 'session.updated', session: event.session })
          return
        case 'input_audio_buffer.append': {
          const bytes = Buffer.from(String(event.audio), 'base64')
          const pcm = new Int16Array(bytes.buffer, bytes.byteOffset, bytes.length >> 1)
          this.appendedSamples += pcm.length
          const joined = new Int16Array(pending.length + pcm.length)
          joined.set(pending)
          joined.set(pcm, pending.length)
          let at = 0
          for (; at + CHUNK <= joined.length; at += CHUNK) {
            let sum = 0
            for (let i = at; i < at + CHUNK; i++) sum += joined[i]! * joined[i]!
            const voiced = Math.sqrt(sum / CHUNK) / 32768 > 0.02
            if (voiced && !inSpeech) {
              inSpeech = true
              silentMs = 0
              send({ type: 'input_audio_buffer.speech_started', item_id: `in_${this.turn + 1}`, audio_start_ms: 0 })
            } else if (inSpeech) {
              silentMs = voiced ? 0 : silentMs + 20
              if (silentMs >= SILENCE_TO_STOP_MS) {
                inSpeech = false
                send({ type: 'input_audio_buffer.speech_stopped', item_id: `in_${this.turn + 1}`, audio_end_ms: 0 })
                send({ type: 'input_audio_buffer.committed', item_id: `in_${this.turn + 1}` })
                respond()
              }
            }
          }
          pending = joined.slice(at)
          return
        }
        case 'response.cancel':
          if (streaming) {
            clearInterval(streaming.timer)
            if (streaming.timer) this.timers.delete(streaming.timer)
            const id = streaming.id
            streaming = null
            send({ type: 'response.done', response: { id, status: 'cancelled' } })
          } else {
            send({ type: 'error', error: { type: 'invalid_request_error', code: 'response_cancel_not_active', message: 'no active response' } })
          }
          return
        case 'conversation.item.truncate':
          send({ type: 'conversation.item.truncated', item_id: event.item_id, content_index: 0, audio_end_ms: event.audio_end_ms })
          return
        default:
          return
      }
    })
  }
}
