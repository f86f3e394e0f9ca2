/**
 * One agent's conversation with the OpenAI Realtime API over its WebSocket protocol: the room's
 * mixed audio goes up as 24 kHz PCM (`input_audio_buffer.append`), the server's voice activity
 * detection takes turns, and the reply's audio (`response.output_audio.delta`) comes down,
 * resampled to 16 kHz and played into the room.
 *
 * What the room hears is what counts: a reply's transcript is published once its audio has been
 * played, and after a barge-in only the part that was heard is published (marked `truncated`),
 * while the model is told the same (`conversation.item.truncate`, clamped to the audio the item
 * can hold, with the item deleted when the server refuses the truncation). While the server's
 * VAD has a turn open, silence keeps flowing up even after the room's mixed input stopped, so a
 * long `silence_duration_ms` still ends the turn. A session the server ends normally (its time
 * limit) is reopened with the same configuration.
 */
import type WebSocket from 'ws'
import {
  AgentFailure,
  base64ToPcm,
  heardText,
  PcmResampler,
  pcmToBase64,
  scrubSecrets,
  ToolRunner,
  type AgentContext,
  type AgentControl,
  type AgentSession,
  type ServerEvent,
  type ToolConfig,
} from '../../core/provider.js'
import { RealtimeTools, type FunctionCallDone } from './tools.js'

export const REALTIME_RATE = 24_000
const ROOM_RATE = 16_000
/** Upstream audio is dropped rather than buffered without bound when the socket backs up. */
const MAX_BUFFERED_BYTES = 1 << 20
/** The server's item holds up to ~85 ms less audio than it delivered: truncation stays this far inside. */
export const TRUNCATE_MARGIN_MS = 100
/** While the server's turn is open and the room sends nothing, this much silence goes up per tick. */
const FILLER_MS = 100
/** At most this much silence is sent into one open turn (then the server must have decided). */
const FILLER_CAP_MS = 6000
/** Close codes by which the server ends a session normally (1001: its time limit): reconnect. */
const NORMAL_END_CODES = new Set([1000, 1001])
/** Reconnections allowed within a minute; one more fails the agent. */
const MAX_RECONNECTS_PER_MINUTE = 3

const SILENCE_100MS = pcmToBase64(new Int16Array((REALTIME_RATE * FILLER_MS) / 1000))

export interface RealtimeConfig extends ToolConfig {
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
  /** Values scrubbed from whatever this session logs (the key, the endpoint). */
  readonly secrets: ReadonlyArray<string>
}

/** A server event, as far as this client reads it. */
interface RealtimeServerEvent {
  readonly type: string
  readonly response?: {
    readonly id?: string
    readonly status?: string
    readonly status_details?: { readonly reason?: string; readonly error?: { readonly type?: string; readonly code?: string } } | null
    readonly output?: ReadonlyArray<{ readonly type?: string }>
  }
  readonly item?: { readonly id?: string; readonly type?: string; readonly role?: string }
  readonly response_id?: string
  readonly item_id?: string
  readonly delta?: string
  readonly transcript?: string
  readonly error?: { readonly type?: string; readonly code?: string; readonly message?: string; readonly event_id?: string | null }
}

type PendingEvent = { readonly kind: 'cancel' } | { readonly kind: 'truncate' | 'delete'; readonly itemId: string }

/** The assistant item being played: what arrived, what was pushed into the room, what it says. */
interface Reply {
  readonly itemId: string
  readonly responseId: string | null
  /** 24 kHz samples received. */
  received: number
  /** Milliseconds pushed into the room (16 kHz). */
  pushedMs: number
  text: string
  audioDone: boolean
  transcriptDone: boolean
  /** Its transcript was published (or it was interrupted): nothing more to say about it. */
  settled: boolean
}

export const realtimeUrl = (baseUrl: string, model: string) =>
  `${baseUrl.replace(/\/+$/, '')}/realtime?model=${encodeURIComponent(model)}`

/** The `session.update` this client sends: audio formats, voice, instructions, server VAD. */
export const sessionUpdate = (config: RealtimeConfig, tools: Record<string, unknown> = {}) => ({
  type: 'session.update',
  session: {
    type: 'realtime',
    ...tools,
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

/** The response that speaks `text` on request (control): the model is told to say it word for word, no tool. */
export const sayResponse = (text: string) => ({
  type: 'response.create',
  response: { instructions: `Say exactly the following, word for word, and nothing else:\n${text}`, tool_choice: 'none' },
})

/** A live update's `session.update`: the instructions and the tools on offer. */
const instructionsUpdate = (config: RealtimeConfig, tools: Record<string, unknown>) => ({
  type: 'session.update',
  session: { type: 'realtime', instructions: config.instructions, ...tools },
})

/** Open a socket, wait for `session.created`, configure the session, wait for `session.updated`. */
const connect = async (ctx: AgentContext<RealtimeConfig>, endpoint: RealtimeEndpoint, tools: RealtimeTools): Promise<WebSocket> => {
  // `ws` is loaded by the first session, not with the engine (issue 39: a lighter process).
  const { default: WebSocketClient } = await import('ws')
  if (ctx.signal.aborted) throw new AgentFailure('realtime connection aborted before it opened')
  const ws = new WebSocketClient(realtimeUrl(endpoint.baseUrl, ctx.config.model), {
    headers: { Authorization: `Bearer ${endpoint.apiKey}` },
    handshakeTimeout: 10_000,
  })
  const abort = () => ws.terminate()
  ctx.signal.addEventListener('abort', abort, { once: true })
  return new Promise<WebSocket>((resolve, reject) => {
    let created = false
    const fail = (reason: string) => {
      cleanup()
      ctx.signal.removeEventListener('abort', abort)
      ws.on('error', () => {}) // terminating a socket still connecting reports an error; it is this one
      ws.terminate()
      reject(new AgentFailure(reason))
    }
    const onMessage = (data: WebSocket.RawData) => {
      const event = parse(data)
      if (!event) return
      if (event.type === 'session.created' && !created) {
        created = true
        ws.send(JSON.stringify(sessionUpdate(ctx.config, tools.sessionFields())))
      } else if (event.type === 'session.updated') {
        cleanup()
        ctx.signal.removeEventListener('abort', abort)
        resolve(ws)
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
}

export class RealtimeSession implements AgentSession {
  private ws!: WebSocket
  /** The response the server is generating, if any. */
  private responseId: string | null = null
  /** Responses whose further audio is not played (cancelled by us or by the server). */
  private readonly cancelled = new Set<string>()
  private reply: Reply | null = null
  private playedTimer: NodeJS.Timeout | undefined
  /** The server's VAD heard speech start and not yet its end. */
  private turnOpen = false
  private lastUpAt = 0
  private filler: NodeJS.Timeout | undefined
  private filledMs = 0
  private closing = false
  private droppedUp = 0
  private seq = 0
  /** Our client events whose `error` is expected or handled: event id -> what it was. */
  private readonly pending = new Map<string, PendingEvent>()
  private readonly reconnects: number[] = []
  /** Text to say once the response under way is done (control.ts). */
  private readonly toSay: string[] = []

  /** Live control: say and update as Realtime API client events, interrupt as a barge-in. */
  readonly control: AgentControl = {
    say: (text, { interrupt }) => {
      if (interrupt) this.control.interrupt!()
      // One response at a time: a say while one is under way (or being cancelled) waits for its response.done.
      if (this.responseId !== null) this.toSay.push(text)
      else this.send(sayResponse(text))
    },
    interrupt: () => {
      this.toSay.length = 0
      if (this.responseId !== null || this.ctx.audio.speaking || (this.reply !== null && !this.reply.settled)) this.bargeIn(false)
    },
    update: (changed) => {
      this.send(instructionsUpdate(this.ctx.config, this.tools.sessionFields()))
      if (changed.includes('tools')) this.watchTools(this.runner)
    },
  }
  private watchingTools = false

  /** From the first read of ctx.tools on: the session's tools follow the room's, and the room is told. */
  private watchTools(runner: ToolRunner): void {
    if (this.watchingTools) return
    this.watchingTools = true
    this.ctx.tools.onChange(() => {
      this.send({ type: 'session.update', session: { type: 'realtime', ...this.tools.sessionFields() } })
      this.ctx.emit({ kind: 'tools', tools: runner.functions().map((f) => f.name) })
    })
  }

  private constructor(
    private readonly ctx: AgentContext<RealtimeConfig>,
    private readonly endpoint: RealtimeEndpoint,
    private readonly tools: RealtimeTools,
    private readonly runner: ToolRunner,
    private readonly up: PcmResampler,
    private readonly down: PcmResampler,
  ) {}

  static async open(ctx: AgentContext<RealtimeConfig>, endpoint: RealtimeEndpoint): Promise<RealtimeSession> {
    const [up, down] = await Promise.all([
      PcmResampler.create(ROOM_RATE, REALTIME_RATE),
      PcmResampler.create(REALTIME_RATE, ROOM_RATE),
    ])
    let session: RealtimeSession | undefined
    const runner = new ToolRunner(ctx, () => ctx.config, endpoint.secrets)
    const tools = new RealtimeTools(runner, () => ctx.config, (event) => session?.send(event), ctx.signal)
    let ws: WebSocket
    try {
      ws = await connect(ctx, endpoint, tools)
    } catch (e) {
      up.close()
      down.close()
      throw e
    }
    session = new RealtimeSession(ctx, endpoint, tools, runner, up, down)
    session.attach(ws)
    // Read now (only when tools are allowed): the room's devices are asked for theirs as the agent joins.
    if (ctx.config.tools) session.watchTools(runner)
    ctx.emit({ kind: 'state', state: 'listening' })
    return session
  }

  private attach(ws: WebSocket): void {
    this.ws = ws
    ws.on('message', (data) => this.onMessage(data))
    ws.on('close', (code) => {
      if (this.closing || this.ws !== ws) return
      this.onClosed(code)
    })
    ws.on('error', () => {
      // 'close' follows and reports it; the error text may carry the endpoint.
    })
  }

  onAudio(pcm: Int16Array): void {
    this.lastUpAt = performance.now()
    if (this.ws.readyState !== this.ws.OPEN) return
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
    if (who?.kind === 'terminal' && this.ctx.audio.speaking) this.bargeIn(false)
  }

  stop(): void {
    this.closing = true
    clearTimeout(this.playedTimer)
    this.stopFiller()
    this.ws.close(1000)
    this.up.close()
    this.down.close()
  }

  /** The server closed the socket: a normal end of session reconnects, anything else fails the agent. */
  private onClosed(code: number): void {
    this.stopFiller()
    this.turnOpen = false
    this.responseId = null
    // A reply cut off by the end of the session: the room hears what was pushed; say that much.
    const reply = this.reply
    if (reply && !reply.settled && !reply.transcriptDone) {
      reply.settled = true
      if (reply.text) this.ctx.emit({ kind: 'transcript', role: 'agent', text: reply.text, final: true, truncated: true })
    }
    if (!NORMAL_END_CODES.has(code)) {
      this.ctx.fail(`realtime connection closed (${code})`)
      return
    }
    // Counted on the agent's clock (the engine's): a test moves it instead of waiting a minute.
    const now = this.ctx.clock.monotonic()
    while (this.reconnects.length > 0 && now - this.reconnects[0]! > 60_000) this.reconnects.shift()
    if (this.reconnects.length >= MAX_RECONNECTS_PER_MINUTE) {
      this.ctx.fail(`realtime connection closed (${code}) ${this.reconnects.length + 1} times within a minute`)
      return
    }
    this.reconnects.push(now)
    this.ctx.log.info({ code }, 'realtime session ended by the server; reconnecting with the same configuration')
    connect(this.ctx, this.endpoint, this.tools).then(
      (ws) => {
        if (this.closing) {
          ws.close(1000)
          return
        }
        this.attach(ws)
        this.ctx.log.info('realtime session reopened')
        this.ctx.emit({ kind: 'state', state: 'listening' })
      },
      (e: unknown) => {
        if (!this.closing) this.ctx.fail(e instanceof AgentFailure ? `realtime reconnection failed: ${e.message}` : 'realtime reconnection failed')
      },
    )
  }

  /**
   * Someone talks over the agent: stop the reply, publish and tell the model only what was heard,
   * drop the rest. `serverCancelled`: the server's own VAD cancelled the reply (interrupt_response).
   */
  private bargeIn(serverCancelled: boolean): void {
    const responseId = this.responseId
    if (responseId !== null && !this.cancelled.has(responseId)) {
      this.cancelled.add(responseId)
      if (!serverCancelled) this.expect(this.send({ type: 'response.cancel', response_id: responseId }), { kind: 'cancel' })
    }
    const reply = this.reply
    if (reply && !reply.settled) {
      reply.settled = true
      if (reply.responseId !== null) this.cancelled.add(reply.responseId)
      const heardMs = Math.max(0, Math.min(reply.pushedMs, reply.pushedMs - this.ctx.audio.pendingMs))
      this.truncate(reply, heardMs)
      const text = heardText(reply.text, reply.pushedMs > 0 ? heardMs / reply.pushedMs : 0)
      if (text) this.ctx.emit({ kind: 'transcript', role: 'agent', text, final: true, truncated: true })
    }
    clearTimeout(this.playedTimer)
    this.ctx.audio.clear()
    this.ctx.emit({ kind: 'interrupted' })
    this.ctx.emit({ kind: 'state', state: 'listening' })
  }

  /**
   * The server cancelled a reply none of whose audio has arrived yet (its model was still
   * thinking): ignore the rest of it, and delete its item so its unheard text leaves the context.
   */
  private dropUnheardReply(): void {
    if (this.responseId !== null) this.cancelled.add(this.responseId)
    const reply = this.reply
    if (!reply || reply.settled || reply.received > 0) return
    reply.settled = true
    if (reply.responseId !== null) this.cancelled.add(reply.responseId)
    this.deleteItem(reply.itemId)
  }

  /** Tell the model how much of the item was heard; an item with no audio was not heard at all. */
  private truncate(reply: Reply, heardMs: number): void {
    if (reply.received === 0) {
      this.deleteItem(reply.itemId)
      return
    }
    const receivedMs = Math.floor((reply.received / REALTIME_RATE) * 1000)
    const audioEndMs = Math.max(0, Math.min(Math.round(heardMs), receivedMs - TRUNCATE_MARGIN_MS))
    const id = this.send({ type: 'conversation.item.truncate', item_id: reply.itemId, content_index: 0, audio_end_ms: audioEndMs })
    this.expect(id, { kind: 'truncate', itemId: reply.itemId })
  }

  private deleteItem(itemId: string): void {
    this.expect(this.send({ type: 'conversation.item.delete', item_id: itemId }), { kind: 'delete', itemId })
  }

  /** Publish the reply's transcript once its audio has been played (or wait until it has). */
  private settleWhenPlayed(): void {
    const reply = this.reply
    if (!reply || reply.settled || !reply.audioDone || !reply.transcriptDone) return
    clearTimeout(this.playedTimer)
    const pendingMs = this.ctx.audio.pendingMs
    if (pendingMs > 0) {
      this.playedTimer = setTimeout(() => this.settleWhenPlayed(), Math.ceil(pendingMs) + 5)
      return
    }
    reply.settled = true
    if (reply.text) this.ctx.emit({ kind: 'transcript', role: 'agent', text: reply.text, final: true })
    this.ctx.emit({ kind: 'state', state: 'listening' })
  }

  /** While the server's turn is open, keep its VAD fed with silence once the room stops sending. */
  private startFiller(): void {
    this.stopFiller()
    this.filledMs = 0
    this.filler = setInterval(() => {
      if (!this.turnOpen || this.filledMs >= FILLER_CAP_MS) {
        this.stopFiller()
        return
      }
      if (performance.now() - this.lastUpAt < FILLER_MS || this.ws.readyState !== this.ws.OPEN) return
      this.send({ type: 'input_audio_buffer.append', audio: SILENCE_100MS })
      this.filledMs += FILLER_MS
    }, FILLER_MS)
  }

  private stopFiller(): void {
    clearInterval(this.filler)
    this.filler = undefined
  }

  private onMessage(data: WebSocket.RawData): void {
    const event = parse(data)
    if (!event) return
    switch (event.type) {
      case 'input_audio_buffer.speech_started':
        this.tools.newTurn()
        this.turnOpen = true
        this.startFiller()
        // The server heard the room speak; with interrupt_response it has cancelled its reply itself.
        if (this.ctx.audio.speaking) this.bargeIn(true)
        else this.dropUnheardReply()
        return
      case 'input_audio_buffer.speech_stopped':
        this.turnOpen = false
        this.stopFiller()
        this.ctx.emit({ kind: 'state', state: 'thinking' })
        return
      case 'response.created':
        this.responseId = event.response?.id ?? null
        return
      case 'response.output_item.added':
        if (event.item?.id && event.item.role === 'assistant') this.startReply(event.item.id, event.response_id ?? this.responseId)
        return
      case 'response.output_audio_transcript.delta': {
        const reply = this.replyFor(event)
        if (reply && event.delta) reply.text += event.delta
        return
      }
      case 'response.output_audio.delta': {
        if (!event.delta || this.isCancelled(event)) return
        const reply = this.replyFor(event) ?? (event.item_id ? this.startReply(event.item_id, event.response_id ?? null) : null)
        if (!reply || reply.settled) return
        const raw = base64ToPcm(event.delta)
        reply.received += raw.length
        const pcm = this.down.process(raw)
        reply.pushedMs += (pcm.length / ROOM_RATE) * 1000
        const wasSpeaking = this.ctx.audio.speaking
        this.ctx.audio.push(pcm)
        if (!wasSpeaking) this.ctx.emit({ kind: 'state', state: 'speaking' })
        return
      }
      case 'response.output_audio.done': {
        const reply = this.replyFor(event)
        if (!reply || this.isCancelled(event)) return
        reply.audioDone = true
        this.ctx.audio.flush()
        this.settleWhenPlayed()
        return
      }
      case 'response.output_audio_transcript.done': {
        const reply = this.replyFor(event)
        if (!reply || this.isCancelled(event)) return
        if (typeof event.transcript === 'string') reply.text = event.transcript
        reply.transcriptDone = true
        this.settleWhenPlayed()
        return
      }
      case 'conversation.item.input_audio_transcription.completed':
        if (event.transcript) this.ctx.emit({ kind: 'transcript', role: 'user', text: event.transcript, final: true })
        return
      case 'response.function_call_arguments.done':
        this.tools.callDone(event as FunctionCallDone)
        return
      case 'response.done':
        this.onResponseDone(event)
        void this.tools.responseDone(event.response?.output, event.response?.status === 'completed')
        return
      case 'error':
        this.onError(event)
        return
      default:
        return
    }
  }

  private startReply(itemId: string, responseId: string | null): Reply {
    const previous = this.reply
    // A reply still waiting to be heard when the next one starts was queued ahead of it: it is heard.
    if (previous && !previous.settled && previous.itemId !== itemId) {
      previous.audioDone = previous.transcriptDone = true
      previous.settled = true
      if (previous.text) this.ctx.emit({ kind: 'transcript', role: 'agent', text: previous.text, final: true })
    }
    if (previous?.itemId === itemId) return previous
    this.reply = { itemId, responseId, received: 0, pushedMs: 0, text: '', audioDone: false, transcriptDone: false, settled: false }
    return this.reply
  }

  private replyFor(event: RealtimeServerEvent): Reply | null {
    return this.reply && event.item_id === this.reply.itemId ? this.reply : null
  }

  private isCancelled(event: RealtimeServerEvent): boolean {
    return event.response_id !== undefined && this.cancelled.has(event.response_id)
  }

  private onResponseDone(event: RealtimeServerEvent): void {
    const id = event.response?.id
    if (id === undefined || id === this.responseId) this.responseId = null
    const status = event.response?.status
    if (status === 'failed' || status === 'incomplete') {
      const details = event.response?.status_details
      const reason = details?.reason ?? details?.error?.code ?? details?.error?.type ?? status
      this.ctx.log.warn({ responseId: id, status, reason }, 'realtime reply did not complete')
      this.ctx.emit({ kind: 'reply', status, reason })
    }
    if (!this.ctx.audio.speaking && (this.reply === null || this.reply.settled)) this.ctx.emit({ kind: 'state', state: 'listening' })
    const next = this.responseId === null ? this.toSay.shift() : undefined
    if (next !== undefined) this.send(sayResponse(next))
  }

  private onError(event: RealtimeServerEvent): void {
    const error = event.error ?? {}
    const about = error.event_id ? this.pending.get(error.event_id) : undefined
    if (error.event_id) this.pending.delete(error.event_id)
    const logged = { code: error.code, type: error.type, message: scrubSecrets(error.message ?? '', this.endpoint.secrets) }
    if (about?.kind === 'cancel' || (about === undefined && error.code === 'response_cancel_not_active')) {
      // The server's VAD cancelled the reply itself (interrupt_response) just before our cancel arrived.
      this.ctx.log.debug(logged, 'realtime reply was already cancelled by the server')
      return
    }
    if (about?.kind === 'truncate') {
      // Refused (the item is shorter than we think, or has no audio): make sure no unheard text stays.
      this.ctx.log.info(logged, 'realtime truncation refused; deleting the interrupted item instead')
      this.deleteItem(about.itemId)
      return
    }
    // Recoverable by the protocol's definition; the session stays open.
    this.ctx.log.warn(logged, 'realtime error event')
  }

  /** Remember a client event whose error we handle (the oldest are forgotten: most never fail). */
  private expect(eventId: string, what: PendingEvent): void {
    this.pending.set(eventId, what)
    if (this.pending.size > 64) this.pending.delete(this.pending.keys().next().value!)
  }

  /** Send a client event with our own event id (errors about it name that id); returns the id. */
  send(event: Record<string, unknown>): string {
    const eventId = `hark_${++this.seq}`
    if (this.ws.readyState === this.ws.OPEN) this.ws.send(JSON.stringify({ event_id: eventId, ...event }))
    return eventId
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
