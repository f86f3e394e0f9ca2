/**
 * One agent's conversation with the OpenAI Realtime API over its WebSocket protocol: the room's
 * mixed audio goes up as 24 kHz PCM (`input_audio_buffer.append`), the server's voice activity
 * detection takes turns, and the reply's audio (`response.output_audio.delta`) comes down,
 * resampled to 16 kHz and played into the room. Barge-in: when a terminal starts speaking while
 * the agent is talking, the reply in progress is cancelled (`response.cancel`), the model is told
 * how much of it was heard (`conversation.item.truncate`), and queued audio is dropped.
 */
import WebSocket from 'ws'
import { AgentFailure, type AgentContext, type AgentSession, type ServerEvent } from '../../core/index.js'
import { base64ToPcm, PcmResampler, pcmToBase64 } from './resampler.js'

export const REALTIME_RATE = 24_000
const ROOM_RATE = 16_000
/** Upstream audio is dropped rather than buffered without bound when the socket backs up. */
const MAX_BUFFERED_BYTES = 1 << 20

export interface RealtimeConfig {
  readonly model: string
  readonly voice: string
  readonly instructions: string
  readonly vadSilenceMs?: number
  readonly inputTranscriptionModel?: string
}

export interface RealtimeEndpoint {
  /** e.g. wss://api.openai.com/v1 */
  readonly baseUrl: string
  readonly apiKey: string
}

/** A server event, as far as this client reads it. */
interface RealtimeServerEvent {
  readonly type: string
  readonly response?: { readonly id?: string; readonly status?: string }
  readonly response_id?: string
  readonly item_id?: string
  readonly delta?: string
  readonly transcript?: string
  readonly error?: { readonly type?: string; readonly code?: string; readonly message?: string }
}

export const realtimeUrl = (baseUrl: string, model: string) =>
  `${baseUrl.replace(/\/+$/, '')}/realtime?model=${encodeURIComponent(model)}`

/** The `session.update` this client sends: audio formats, voice, instructions, server VAD. */
export const sessionUpdate = (config: RealtimeConfig) => ({
  type: 'session.update',
  session: {
    type: 'realtime',
    model: config.model,
    instructions: config.instructions,
    output_modalities: ['audio'],
    audio: {
      input: {
        format: { type: 'audio/pcm', rate: REALTIME_RATE },
        turn_detection: {
          type: 'server_vad',
          create_response: true,
          interrupt_response: true,
          ...(config.vadSilenceMs !== undefined ? { silence_duration_ms: config.vadSilenceMs } : {}),
        },
        ...(config.inputTranscriptionModel ? { transcription: { model: config.inputTranscriptionModel } } : {}),
      },
      output: { format: { type: 'audio/pcm', rate: REALTIME_RATE }, voice: config.voice },
    },
  },
})

export class RealtimeSession implements AgentSession {
  private responseId: string | null = null
  private cancelledResponseId: string | null = null
  private itemId: string | null = null
  /** Milliseconds of the current reply item pushed to the room. */
  private itemPushedMs = 0
  private speakingReply = false
  private closing = false
  private droppedUp = 0

  private constructor(
    private readonly ctx: AgentContext<RealtimeConfig>,
    private readonly ws: WebSocket,
    private readonly up: PcmResampler,
    private readonly down: PcmResampler,
  ) {
    ws.on('message', (data) => this.onMessage(data))
    ws.on('close', (code) => {
      if (!this.closing) ctx.fail(`realtime connection closed (${code})`)
    })
    ws.on('error', () => {
      // 'close' follows and reports it; the error text may carry the endpoint.
    })
  }

  /** Connect, wait for `session.created`, configure the session, wait for `session.updated`. */
  static async open(ctx: AgentContext<RealtimeConfig>, endpoint: RealtimeEndpoint): Promise<RealtimeSession> {
    const [up, down] = await Promise.all([
      PcmResampler.create(ROOM_RATE, REALTIME_RATE),
      PcmResampler.create(REALTIME_RATE, ROOM_RATE),
    ])
    const ws = new WebSocket(realtimeUrl(endpoint.baseUrl, ctx.config.model), {
      headers: { Authorization: `Bearer ${endpoint.apiKey}` },
      handshakeTimeout: 10_000,
    })
    const abort = () => ws.terminate()
    ctx.signal.addEventListener('abort', abort, { once: true })
    try {
      await new Promise<void>((resolve, reject) => {
        let created = false
        const fail = (reason: string) => {
          cleanup()
          reject(new AgentFailure(reason))
        }
        const onMessage = (data: WebSocket.RawData) => {
          const event = parse(data)
          if (!event) return
          if (event.type === 'session.created' && !created) {
            created = true
            ws.send(JSON.stringify(sessionUpdate(ctx.config)))
          } else if (event.type === 'session.updated') {
            cleanup()
            resolve()
          } else if (event.type === 'error') {
            fail(`realtime session refused: ${event.error?.message ?? event.error?.code ?? 'error'}`)
          }
        }
        const onResponse = (_req: unknown, res: { statusCode?: number }) => fail(`realtime connection refused (HTTP ${res.statusCode ?? '?'})`)
        const onError = (e: Error & { code?: string }) => fail(`realtime connection failed${e.code ? ` (${e.code})` : ''}`)
        const onClose = (code: number) => fail(`realtime connection closed during setup (${code})`)
        const cleanup = () => {
          ws.off('message', onMessage)
          ws.off('unexpected-response', onResponse)
          ws.off('error', onError)
          ws.off('close', onClose)
        }
        ws.on('message', onMessage)
        ws.on('unexpected-response', onResponse)
        ws.on('error', onError)
        ws.on('close', onClose)
      })
    } catch (e) {
      ctx.signal.removeEventListener('abort', abort)
      ws.on('error', () => {}) // terminating a socket still connecting reports an error; it is this one
      ws.terminate()
      up.close()
      down.close()
      throw e
    }
    ctx.emit({ kind: 'state', state: 'listening' })
    return new RealtimeSession(ctx, ws, up, down)
  }

  onAudio(pcm: Int16Array): void {
    if (this.ws.readyState !== WebSocket.OPEN) return
    if (this.ws.bufferedAmount > MAX_BUFFERED_BYTES) {
      if (this.droppedUp++ % 250 === 0) this.ctx.log.warn({ dropped: this.droppedUp }, 'realtime upstream backed up; dropping room audio')
      return
    }
    const audio = this.up.process(pcm)
    if (audio.length > 0) this.send({ type: 'input_audio_buffer.append', audio: pcmToBase64(audio) })
  }

  onEvent(event: ServerEvent): void {
    if (event.type !== 'speaking.started') return
    const who = this.ctx.participants().find((p) => p.id === event.participantId)
    if (who?.kind === 'terminal' && this.ctx.audio.speaking) this.bargeIn()
  }

  stop(): void {
    this.closing = true
    this.ws.close(1000)
    this.up.close()
    this.down.close()
  }

  /** A terminal talks over the agent: cancel the reply, tell the model what was heard, drop the rest. */
  private bargeIn(): void {
    if (this.responseId !== null && this.responseId !== this.cancelledResponseId) {
      this.send({ type: 'response.cancel', response_id: this.responseId })
      this.cancelledResponseId = this.responseId
    }
    if (this.itemId !== null) {
      const heardMs = Math.max(0, Math.round(this.itemPushedMs - this.ctx.audio.pendingMs))
      this.send({ type: 'conversation.item.truncate', item_id: this.itemId, content_index: 0, audio_end_ms: heardMs })
      this.itemId = null
    }
    this.ctx.audio.clear()
    this.speakingReply = false
    this.ctx.emit({ kind: 'interrupted' })
    this.ctx.emit({ kind: 'state', state: 'listening' })
  }

  private onMessage(data: WebSocket.RawData): void {
    const event = parse(data)
    if (!event) return
    switch (event.type) {
      case 'input_audio_buffer.speech_started':
        // The server heard the room speak; a reply still playing is interrupted.
        if (this.ctx.audio.speaking) this.bargeIn()
        return
      case 'input_audio_buffer.speech_stopped':
        this.ctx.emit({ kind: 'state', state: 'thinking' })
        return
      case 'response.created':
        this.responseId = event.response?.id ?? null
        return
      case 'response.output_audio.delta': {
        if (!event.delta || (event.response_id !== undefined && event.response_id === this.cancelledResponseId)) return
        if (event.item_id && event.item_id !== this.itemId) {
          this.itemId = event.item_id
          this.itemPushedMs = 0
        }
        const pcm = this.down.process(base64ToPcm(event.delta))
        this.itemPushedMs += (pcm.length / ROOM_RATE) * 1000
        this.ctx.audio.push(pcm)
        if (!this.speakingReply) {
          this.speakingReply = true
          this.ctx.emit({ kind: 'state', state: 'speaking' })
        }
        return
      }
      case 'response.output_audio.done':
        if (event.response_id === undefined || event.response_id !== this.cancelledResponseId) this.ctx.audio.flush()
        return
      case 'response.output_audio_transcript.done':
        if (event.transcript) this.ctx.emit({ kind: 'transcript', role: 'agent', text: event.transcript, final: true })
        return
      case 'conversation.item.input_audio_transcription.completed':
        if (event.transcript) this.ctx.emit({ kind: 'transcript', role: 'user', text: event.transcript, final: true })
        return
      case 'response.done':
        if (event.response?.id === undefined || event.response.id === this.responseId) this.responseId = null
        this.speakingReply = false
        this.ctx.emit({ kind: 'state', state: 'listening' })
        return
      case 'error':
        // Recoverable by the protocol's definition (e.g. a cancel that raced the reply's end).
        this.ctx.log.warn({ code: event.error?.code, type: event.error?.type, message: event.error?.message }, 'realtime error event')
        return
      default:
        return
    }
  }

  private send(event: Record<string, unknown>): void {
    if (this.ws.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify(event))
  }
}

const parse = (data: WebSocket.RawData): RealtimeServerEvent | null => {
  try {
    const event = JSON.parse(String(data)) as unknown
    return typeof event === 'object' && event !== null && typeof (event as { type?: unknown }).type === 'string'
      ? (event as RealtimeServerEvent)
      : null
  } catch {
    return null
  }
}
