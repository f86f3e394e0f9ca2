/**
 * A terminal session that outlives its connections: it opens a link (WebSocket or WebRTC), keeps
 * what the events say (who it is, its room, the participants, who is speaking), answers control
 * messages, carries audio, and when a link drops for a reason reconnecting can cure, opens another
 * after a backoff (reconnect.ts) and is back in its room. A reason that must not be retried ends it
 * with the typed error (errors.ts).
 *
 * States: connecting → connected ⇄ reconnecting → closed. `closed` is final.
 */
import type { BrowserAudio } from './browser/audio.js'
import type { WebCodecsAudio } from './browser/webcodecs.js'
import { Emitter } from './emitter.js'
import { CLOSE_CODES, ConnectionError, ConnectionLostError, ControlMessageError, errorFromCode, HarkClientError } from './errors.js'
import type { Link, LinkOpener } from './links/link.js'
import type { WebRtcLink } from './links/webrtc.js'
import {
  DOWNLINK_HEADER_BYTES,
  DOWNLINK_KIND_OPUS,
  LEVEL_UNKNOWN,
  levelByteFromPcm,
  uplinkFrame,
  type AudioMode,
  type Participant,
  type ServerEvent,
  type ServerEventOf,
  type ServerEventType,
} from './protocol.js'
import { backoffMs, needsFreshToken, tokenExpiresAt, type ReconnectPolicy } from './reconnect.js'

export type SessionState = 'connecting' | 'connected' | 'reconnecting' | 'closed'

/** Opus for the PCM helpers (`sendPcm`, the `pcm` event): the Node entry supplies @evan/opus. */
export interface OpusCodec {
  encoder(): { encode(pcm: Int16Array): Uint8Array }
  decoder(): { decode(opus: Uint8Array): Int16Array }
}

export interface ReconnectingInfo {
  /** 1 for the first attempt after a drop. */
  readonly attempt: number
  readonly delayMs: number
  /** Why the last link ended or the last attempt failed. */
  readonly error: HarkClientError
}

/** An event of a type this SDK does not know (a newer server may add some): passed on as is. */
export interface UnknownEvent {
  readonly type: string
  readonly [field: string]: unknown
}

export type SessionEvents = { [K in ServerEventType]: [event: ServerEventOf<K>] } & {
  /** Every server event, known or not. */
  event: [event: ServerEvent | UnknownEvent]
  /** One downlink audio frame (WebSocket): the Opus packet as the source sent it. Called per frame: keep it cheap. */
  audio: [opus: Uint8Array, sourceId: number, seq: number, levelByte: number]
  /** The same frame decoded to 16 kHz mono PCM (needs a codec: the Node entry has one). */
  pcm: [pcm: Int16Array, sourceId: number]
  state: [state: SessionState]
  reconnecting: [info: ReconnectingInfo]
  /** Connected again; the `session` event of the new connection. */
  reconnected: [session: ServerEventOf<'session'>]
  /** The browser's audio path failed (WebCodecs, Web Audio); the session goes on without it. */
  audioError: [error: unknown]
  /** Final: null when `close()` ended it, else the error that did. */
  closed: [error: HarkClientError | null]
}

export interface SessionInit {
  readonly opener: LinkOpener
  readonly token: string
  readonly refreshToken: ((error: HarkClientError) => string | Promise<string>) | undefined
  readonly reconnect: ReconnectPolicy | null
  readonly audioMode: AudioMode
  readonly codec: OpusCodec | null
  readonly audio: BrowserAudio | null
  readonly connectTimeoutMs: number
}

interface Pending {
  resolve(value: unknown): void
  reject(error: HarkClientError): void
}

const notConnected = () => new ConnectionError('the session is not connected', 'not_connected')

export class Session extends Emitter<SessionEvents> {
  state: SessionState = 'connecting'
  /** Why the session ended (null while it runs, or when `close()` ended it). */
  error: HarkClientError | null = null
  sessionId = ''
  clientId = ''
  room: string | null = null
  sourceId: number | null = null
  audioMode: AudioMode
  /** Everyone else in the room, by id, in the order they joined. */
  readonly participants = new Map<string, Participant>()
  /** Ids of the participants talking now (this terminal included). */
  readonly speaking = new Set<string>()

  private token: string
  private link: Link | null = null
  private generation = 0
  private closingError: HarkClientError | null = null
  private waiting: { resolve(e: ServerEventOf<'session'>): void; reject(e: HarkClientError): void } | null = null
  private readonly pending = new Map<string | number, Pending>()
  private readonly modeRequests: Array<Pending & { id: number }> = []
  private nextId = 1
  private userClosed = false
  private wake: (() => void) | null = null
  private sound: WebCodecsAudio | null = null
  private encoder: ReturnType<OpusCodec['encoder']> | null = null
  private readonly decoders = new Map<number, ReturnType<OpusCodec['decoder']>>()
  private sessionEvent: ServerEventOf<'session'> | null = null

  constructor(private readonly init: SessionInit) {
    super()
    this.token = init.token
    this.audioMode = init.opener.transport === 'webrtc' ? 'mixed' : init.audioMode
  }

  get transport(): 'websocket' | 'webrtc' {
    return this.init.opener.transport
  }

  /** Whether the microphone is muted (nothing is sent while it is). */
  get muted(): boolean {
    return this.init.audio?.muted ?? false
  }

  /** First connection: the microphone, the WebCodecs path when needed, then the link. Rejects with the typed error. */
  async start(): Promise<void> {
    const audio = this.init.audio
    try {
      await audio?.start()
      if (audio && this.transport === 'websocket') {
        const { WebCodecsAudio } = await import('./browser/webcodecs.js')
        // Audio only once `session` arrived: anything sooner is a protocol violation.
        const send = (frame: Uint8Array<ArrayBuffer>) => this.state === 'connected' && this.link?.sendAudio(frame)
        this.sound = await WebCodecsAudio.start(audio, send, (error) => this.soundFailed(error))
        audio.onTrack = () => this.sound?.attach()
      } else if (audio) {
        audio.onTrack = (track) => void (this.link as WebRtcLink | null)?.replaceTrack(track)
      }
      try {
        await this.attempt()
      } catch (error) {
        // One fresh token for a token the server refused as expired or invalid.
        if (!(error instanceof HarkClientError) || !needsFreshToken(error) || !this.init.refreshToken) throw error
        this.token = await this.init.refreshToken(error)
        await this.attempt()
      }
    } catch (error) {
      this.release()
      this.state = 'closed'
      this.error = error instanceof HarkClientError ? error : new HarkClientError(String(error), 'failed', { cause: error })
      throw this.error
    }
    this.setState('connected')
  }

  /** Round trip to the server in milliseconds (`ping` → `pong`). */
  async ping(): Promise<number> {
    const started = performance.now()
    await this.request({ type: 'ping' })
    return performance.now() - started
  }

  /** Ask for `forward` (one stream per source) or `mixed` (one stream); resolves with the mode in force. WebRTC is mixed only. */
  setAudioMode(audioMode: AudioMode): Promise<AudioMode> {
    if (this.state !== 'connected' || !this.link) return Promise.reject(notConnected())
    const id = this.nextId++
    return new Promise<AudioMode>((resolve, reject) => {
      this.modeRequests.push({ id, resolve: resolve as (v: unknown) => void, reject })
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject })
      this.link!.sendControl(JSON.stringify({ type: 'audio.mode', audioMode, id }))
    })
  }

  /** Send one Opus packet (16 kHz mono, 20 or 60 ms) behind its V|level byte (WebSocket). False when not sent. */
  sendOpus(opus: Uint8Array, levelByte: number = LEVEL_UNKNOWN): boolean {
    if (this.state !== 'connected' || !this.link) return false
    return this.link.sendAudio(uplinkFrame(opus, levelByte))
  }

  /** Encode 16 kHz mono PCM (320 samples = 20 ms, or 960 = 60 ms) and send it with its measured level (needs a codec). */
  sendPcm(pcm: Int16Array): boolean {
    if (!this.init.codec) throw new HarkClientError('sendPcm needs an Opus codec: use the Node entry of @hark/client, or pass `codec`', 'no_codec')
    if (this.state !== 'connected') return false
    this.encoder ??= this.init.codec.encoder()
    return this.sendOpus(this.encoder.encode(pcm), levelByteFromPcm(pcm))
  }

  mute(): void {
    this.init.audio?.setMuted(true)
  }

  unmute(): void {
    this.init.audio?.setMuted(false)
  }

  /** Use another microphone (a deviceId of `listAudioDevices()`), in the running session. */
  setInputDevice(deviceId: string): Promise<void> {
    if (!this.init.audio) return Promise.reject(new HarkClientError('this session has no browser audio', 'no_audio'))
    return this.init.audio.setInputDevice(deviceId)
  }

  /** Play on another speaker (browsers with `setSinkId`). */
  setOutputDevice(deviceId: string): Promise<void> {
    if (!this.init.audio) return Promise.reject(new HarkClientError('this session has no browser audio', 'no_audio'))
    const context = this.sound?.context as { setSinkId?: (id: string) => Promise<void> } | undefined
    return this.init.audio.setOutputDevice(deviceId, ...(context ? [context] : []))
  }

  /** The microphone's level now, 0 … 1 (RMS); 0 while muted. */
  inputLevel(): number {
    return this.init.audio?.inputLevel() ?? 0
  }

  /** The room's audio arriving now, 0 … 1: what is played (WebSocket), or the level the stream carries (WebRTC). */
  outputLevel(): number {
    if (this.sound) return this.sound.outputLevel()
    const peer = (this.link as WebRtcLink | null)?.peer
    const sources = peer?.getReceivers().flatMap((r) => r.getSynchronizationSources()) ?? []
    return sources.reduce((max, s) => Math.max(max, s.audioLevel ?? 0), 0)
  }

  /** Leave: the server ends the session (the room hears participant.left), the microphone is released. */
  async close(): Promise<void> {
    if (this.state === 'closed') return
    this.userClosed = true
    this.wake?.()
    const link = this.link
    this.link = null
    this.generation++
    await link?.close()
    this.finish(null)
  }

  // ---- links ----

  private async attempt(): Promise<void> {
    const generation = ++this.generation
    this.closingError = null
    const current = () => generation === this.generation
    const established = new Promise<ServerEventOf<'session'>>((resolve, reject) => (this.waiting = { resolve, reject }))
    established.catch(() => undefined)
    let timer: ReturnType<typeof setTimeout> | undefined
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new ConnectionError(`no session within ${this.init.connectTimeoutMs} ms`, 'ETIMEDOUT')), this.init.connectTimeoutMs)
    })
    try {
      const opening = this.init.opener.open(
        this.token,
        {
          event: (text) => current() && this.onText(text),
          audio: (frame) => current() && this.onAudio(frame),
          closed: (error) => current() && this.onLinkClosed(error),
        },
        this.audioMode,
      )
      // A link that opens after the deadline is closed, not leaked.
      opening.then((link) => (current() ? undefined : void link.close()), () => undefined)
      this.link = await Promise.race([opening, timeout])
      await Promise.race([established, timeout])
    } catch (error) {
      this.generation++
      const link = this.link
      this.link = null
      this.waiting = null
      await link?.close()
      throw error
    } finally {
      clearTimeout(timer)
    }
  }

  private onLinkClosed(transportError: HarkClientError): void {
    // session.closing said why; the transport's own reason is the fallback.
    const error = this.closingError ?? transportError
    this.link = null
    this.generation++
    this.rejectPending(error)
    if (this.waiting) {
      this.waiting.reject(error)
      this.waiting = null
      return
    }
    if (!this.userClosed) void this.reconnect(error)
  }

  private async reconnect(first: HarkClientError): Promise<void> {
    const policy = this.init.reconnect
    let error = first
    let refreshed = false
    const stale = () => needsFreshToken(error) || (tokenExpiresAt(this.token) ?? Infinity) <= Date.now()
    const retriable = () => error.retriable || (stale() && this.init.refreshToken !== undefined && !refreshed)
    if (!policy || !retriable()) return this.finish(error)
    this.setState('reconnecting')
    for (let attempt = 1; attempt <= policy.maxAttempts; attempt++) {
      if (!retriable()) break
      let delayMs = backoffMs(policy, attempt, error)
      if (stale() && this.init.refreshToken) {
        try {
          this.token = await this.init.refreshToken(error)
        } catch (cause) {
          return this.finish(cause instanceof HarkClientError ? cause : new HarkClientError(`refreshToken failed: ${String(cause)}`, 'refresh_failed', { cause }))
        }
        refreshed = true
        if (!error.retriable) delayMs = 0
      }
      this.emit('reconnecting', { attempt, delayMs, error })
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, delayMs)
        this.wake = () => {
          clearTimeout(timer)
          resolve()
        }
      })
      this.wake = null
      if (this.userClosed) return
      try {
        await this.attempt()
        this.setState('connected')
        this.emit('reconnected', this.sessionEvent!)
        return
      } catch (e) {
        if (this.userClosed) return
        error = e instanceof HarkClientError ? e : new ConnectionError(String(e), 'ECONNECTION', { cause: e })
      }
    }
    this.finish(error)
  }

  // ---- what arrives ----

  private onText(text: string): void {
    let event: ServerEvent | UnknownEvent
    try {
      event = JSON.parse(text) as ServerEvent | UnknownEvent
    } catch {
      return
    }
    if (typeof event !== 'object' || event === null || typeof event.type !== 'string') return
    this.apply(event as ServerEvent)
    this.emit(event.type as ServerEventType, event as never)
    this.emit('event', event)
  }

  private apply(e: ServerEvent): void {
    switch (e.type) {
      case 'session':
        this.sessionEvent = e
        this.sessionId = e.sessionId
        this.clientId = e.clientId
        this.audioMode = e.audioMode
        this.enterRoom(e.room, e.sourceId, e.participants)
        this.waiting?.resolve(e)
        this.waiting = null
        return
      case 'room.changed':
        this.enterRoom(e.to, e.sourceId, e.participants)
        return
      case 'participant.joined':
        this.participants.set(e.participant.id, e.participant)
        return
      case 'participant.left':
        this.participants.delete(e.participant.id)
        this.speaking.delete(e.participant.id)
        this.forgetSource(e.participant.sourceId)
        return
      case 'speaking.started':
        this.speaking.add(e.participantId)
        return
      case 'speaking.stopped':
        this.speaking.delete(e.participantId)
        return
      case 'audio.mode': {
        this.audioMode = e.audioMode
        const request = this.modeRequests.shift()
        if (request) this.settle(request.id)?.resolve(e.audioMode)
        return
      }
      case 'pong':
        if (e.id !== null) this.settle(e.id)?.resolve(e.serverTime)
        return
      case 'error': {
        if (e.id === undefined || e.id === null) return
        const index = this.modeRequests.findIndex((r) => r.id === e.id)
        if (index >= 0) this.modeRequests.splice(index, 1)
        this.settle(e.id)?.reject(new ControlMessageError(e.message, e.code))
        return
      }
      case 'session.closing': {
        const closeCode = (CLOSE_CODES as Record<string, number>)[e.code] ?? null
        this.closingError = errorFromCode(e.code, e.message, { closeCode })
        return
      }
    }
  }

  private onAudio(frame: Uint8Array): void {
    if (frame[0] !== DOWNLINK_KIND_OPUS || frame.length <= DOWNLINK_HEADER_BYTES) return
    const sourceId = (frame[2]! << 8) | frame[3]!
    const opus = frame.subarray(DOWNLINK_HEADER_BYTES)
    this.sound?.play(opus, sourceId)
    this.emit('audio', opus, sourceId, (frame[4]! << 8) | frame[5]!, frame[1]!)
    if (this.init.codec && this.has('pcm')) {
      let decoder = this.decoders.get(sourceId)
      if (!decoder) this.decoders.set(sourceId, (decoder = this.init.codec.decoder()))
      this.emit('pcm', decoder.decode(opus), sourceId)
    }
  }

  private enterRoom(room: string | null, sourceId: number | null, participants: ReadonlyArray<Participant>): void {
    this.room = room
    this.sourceId = sourceId
    this.participants.clear()
    for (const p of participants) this.participants.set(p.id, p)
    this.speaking.clear()
    // Source ids of another room (or connection) mean nothing here.
    this.forgetSource()
  }

  private forgetSource(sourceId?: number): void {
    this.sound?.forget(sourceId)
    if (sourceId === undefined) this.decoders.clear()
    else this.decoders.delete(sourceId)
  }

  // ---- control messages ----

  private request(message: { type: string }): Promise<unknown> {
    if (this.state !== 'connected' || !this.link) return Promise.reject(notConnected())
    const id = this.nextId++
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject })
      this.link!.sendControl(JSON.stringify({ ...message, id }))
    })
  }

  private settle(id: string | number): Pending | undefined {
    const p = this.pending.get(id)
    this.pending.delete(id)
    return p
  }

  private rejectPending(error: HarkClientError): void {
    for (const p of this.pending.values()) p.reject(error)
    this.pending.clear()
    this.modeRequests.length = 0
  }

  // ---- ending ----

  private soundFailed(error: unknown): void {
    this.emit('audioError', error)
  }

  private setState(state: SessionState): void {
    if (this.state === state) return
    this.state = state
    this.emit('state', state)
  }

  private release(): void {
    this.sound?.stop()
    this.sound = null
    this.init.audio?.stop()
    this.decoders.clear()
  }

  private finish(error: HarkClientError | null): void {
    if (this.state === 'closed') return
    this.error = error
    this.rejectPending(error ?? new ConnectionLostError('the session was closed', 'closed'))
    this.release()
    this.setState('closed')
    this.emit('closed', error)
  }
}
