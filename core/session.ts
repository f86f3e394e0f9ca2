/**
 * A terminal session: what a transport gets back when it hands over an authenticated terminal
 * (`TerminalSession`), and what a room holds as a member (`RoomMember`). Transports implement
 * `TerminalLink` (how to reach the terminal); the session is how the terminal reaches its room.
 * `pushAudio` is the data plane: plain calls only.
 *
 * A session keeps no copy of state another actor owns. Its room is read off the port its room
 * issued (the room detaches the port when the member leaves); its end is its client actor's
 * (core/actors/client.ts) when its credential expires, else told straight to its workspace
 * actor, which owns its place.
 */
import type { RoomMember } from './actors/room.js'
import type { ClockShape } from './clock.js'
import { MAX_OPUS_BYTES } from './dataplane/frame.js'
import type { AudioDrops } from './dataplane/drops.js'
import type { FanoutReceiver } from './dataplane/fanout.js'
import type { SourcePort } from './dataplane/roomRouter.js'
import { publicMessage, wireCodesOf, type HarkError } from './errors.js'
import { PROTOCOL_VERSION, type AudioMode, type AudioParameters, type ParticipantInfo, type ServerEvent } from './events.js'
import { randomBase62 } from './ids.js'
import type { TerminalIdentity } from './security/security.js'

export const AUDIO_PARAMETERS: AudioParameters = {
  codec: 'opus',
  sampleRate: 16000,
  channels: 1,
  frameMs: [20, 60],
  maxOpusBytes: MAX_OPUS_BYTES,
}

/** How the engine reaches a terminal; implemented by each transport. */
export interface TerminalLink {
  /** Transport name for presence and metrics ("websocket", "mqtt", "webrtc"). */
  readonly transport: string
  /** Data plane: a downlink frame. Must not throw; drop (and count) when the terminal is backed up. */
  deliverAudio(frame: Uint8Array): void
  /** Data plane: one publish for many receivers of this transport, when it can (core/dataplane/fanout.ts). */
  readonly fanout?: FanoutReceiver | null
  /** Control plane: an event, serialized the transport's way (JSON text, MQTT publish, data channel). */
  sendEvent(event: ServerEvent): void
  /** End the connection for `reason` (map it with wireCodes). Called at most once per session. */
  close(reason: HarkError): void
}

/** How a terminal reaches its room; returned by `TerminalHub.open`. */
export interface TerminalSession {
  readonly sessionId: string
  readonly workspaceId: string
  readonly clientId: string
  /** Current audio mode of this receiver. */
  readonly audioMode: AudioMode
  /** The room the terminal is in now (its room's membership, read through the port); null for none. */
  readonly room: string | null
  /**
   * Data plane: one uplink frame (V|level byte + Opus), already checked (core/terminalInput.ts);
   * `now` is its receive time (performance.now()) when the transport has read it already.
   */
  pushAudio(uplink: Uint8Array, now?: number): void
  /** Ask for per-source frames (forward) or one mixed stream (mixed). */
  setAudioMode(mode: AudioMode): void
  /** A `participant.event` from this terminal to every member of its room (nothing when it is in none). */
  tellRoom(event: Readonly<Record<string, unknown>>): void
  /** The terminal is gone (socket closed, keepalive lost). Idempotent. */
  end(): void
  /** Close from the server side with a reason (sends session.closing first). Idempotent. */
  close(reason: HarkError): void
}

export interface OpenOptions {
  readonly audioMode?: AudioMode
}

/** The actor that ends a session's control side (its client actor, core/actors/client.ts). */
export interface SessionLifecycle {
  getSnapshot(): { readonly status: string }
  send(event: { readonly type: 'END'; readonly reason: HarkError | null }): void
  stop(): unknown
}

/**
 * The workspace actor that admitted a session: told of its end when it has no client actor, and
 * of a change of audio mode (which its room, the owner of the room's router, acts on).
 */
export interface SessionOwner {
  getSnapshot(): { readonly status: string }
  send(
    event:
      | { readonly type: 'SESSION_END'; readonly session: Session; readonly reason: HarkError | null }
      | { readonly type: 'AUDIO_MODE'; readonly session: Session }
      | { readonly type: 'BROADCAST_ROOM'; readonly room: string; readonly event: ServerEvent },
  ): void
}

/** A session as listeners and listings see it (no methods, nothing live). */
export interface SessionInfo {
  readonly sessionId: string
  readonly workspaceId: string
  readonly clientId: string
  readonly transport: string
  /** Epoch milliseconds. */
  readonly connectedAt: number
}

/**
 * Holds back new sessions' introduction while writes about them (their usage rows, written by
 * group commit: core/usage/meter.ts) wait for their transaction. A session introduced while the
 * gate is held queues its `session` event and whatever follows it until the last `release`, and
 * until then its room neither forwards its audio nor sends it any (frames it sends meanwhile are
 * dropped, counted `early`): a terminal never hears of, and a room never carries, a session whose
 * row is not committed. One per hub; holds nest (each `hold` is paired with one `release`).
 */
export class IntroductionGate {
  private waiting: Array<() => void> | null = null
  private holds = 0

  /** `drops`: where frames a held session sent are counted (reason `early`); none in bare tests. */
  constructor(private readonly drops: AudioDrops | null = null) {}

  get held(): boolean {
    return this.holds > 0
  }

  /** Hold introductions until the matching `release`. */
  hold(): void {
    this.holds++
    this.waiting ??= []
  }

  /** Run `f` once the gate is open (at once when it is). */
  wait(f: () => void): void {
    if (this.waiting === null) f()
    else this.waiting.push(f)
  }

  /** The writes are committed (or queued for later): when no hold is left, introduce the sessions held back. */
  release(): void {
    if (this.holds === 0) return
    if (--this.holds > 0) return
    const waiting = this.waiting
    this.waiting = null
    if (waiting !== null) for (const f of waiting) f()
  }

  /** An uplink frame of a session not yet introduced (off the hot path: only such frames come here). */
  early(transport: string): void {
    if (this.drops !== null) this.drops.cell(transport, 'early').count++
  }
}

export class Session implements TerminalSession, RoomMember {
  readonly sessionId = randomBase62(16, 'ses_')
  readonly connectedAt: number
  audioMode: AudioMode
  /**
   * The change id (the change log's sequence) of the last room move applied to it: moves reach a
   * node by three paths (its own commits, other nodes' messages, the change poll) in no common
   * order, and one older than this is stale (TerminalHub.applyChange).
   */
  roomChangeId = 0
  /** Where its frames go: the port its room issued, kept after a leave to name the room it left. */
  private port: SourcePort | null = null
  /** Where its own frames go: its port once its `session` is out (null while the introduction gate holds it). */
  private uplink: SourcePort | null = null
  private introduced = false
  private done = false
  /** Events held back behind its `session` event while the introduction gate is held; null once sent. */
  private held: ServerEvent[] | null = null
  /**
   * Who hears its end: the workspace actor that admitted it, through the session's client actor
   * when it has one (a credential that expires), else straight (an idle session keeps no actor).
   */
  private owner: SessionOwner | null = null
  private client: SessionLifecycle | null = null

  constructor(
    readonly identity: TerminalIdentity,
    readonly link: TerminalLink,
    private readonly clock: ClockShape,
    audioMode: AudioMode,
    private readonly gate: IntroductionGate | null = null,
  ) {
    this.audioMode = audioMode
    this.connectedAt = clock.now()
    this.audioSink = link.deliverAudio.bind(link)
  }

  // What never changes is read off the identity or the prototype: no field per session.
  get kind(): 'terminal' {
    return 'terminal'
  }
  get name(): string | null {
    return this.identity.client.name
  }
  get id() {
    return this.identity.clientId
  }
  get workspaceId() {
    return this.identity.workspaceId
  }
  get clientId() {
    return this.identity.clientId
  }
  /** Its transport's name (the room's roster says it). */
  get transport(): string {
    return this.link.transport
  }

  get room(): string | null {
    const port = this.port
    return port !== null && port.attached ? port.router.room : null
  }

  /** The room it is in, or the one it was in last (off the port that room issued, kept after the leave); null when its last placement was none. */
  get lastRoom(): string | null {
    return this.port?.router.room ?? null
  }

  /**
   * What listeners are told of this session: a value made when asked (a few times in a session's
   * life — opened, moved, ended, a presence read), not kept with every idle session.
   */
  get info(): SessionInfo {
    return {
      sessionId: this.sessionId,
      workspaceId: this.workspaceId,
      clientId: this.clientId,
      transport: this.link.transport,
      connectedAt: this.connectedAt,
    }
  }

  /** The workspace actor admitted the session; `client`: its client actor, when something about it is timed. */
  admitted(owner: SessionOwner, client: SessionLifecycle | null): void {
    this.owner = owner
    this.client = client
  }

  /** Its client actor, if it has one. */
  get lifecycle(): SessionLifecycle | null {
    return this.client
  }

  pushAudio(uplink: Uint8Array, now = performance.now()): void {
    const port = this.uplink
    if (port !== null) port.router.forward(port, uplink, now)
    else if (this.held !== null) this.gate!.early(this.link.transport)
  }

  /** True while its introduction waits for the gate: its room sends it no audio yet (core/actors/room.ts). */
  get introducing(): boolean {
    return this.held !== null
  }

  deliver(frame: Uint8Array): void {
    this.link.deliverAudio(frame)
  }

  /** Straight to the transport: one call per delivered frame instead of three. */
  readonly audioSink: (frame: Uint8Array) => void

  /** The transport's native fan-out, if it has one (the room's router subscribes it). */
  get fanout(): FanoutReceiver | null {
    return this.link.fanout ?? null
  }

  sendEvent(event: ServerEvent): void {
    if (this.done) return
    if (this.held !== null) this.held.push(event)
    else this.link.sendEvent(event)
  }

  /**
   * The gate opened: send what it held back, then (`listen`) open its audio both ways — its frames
   * go into its room, and its room, told through its workspace actor, sends it the others'.
   */
  private sendHeld(listen: boolean): void {
    const held = this.held
    if (held === null) return
    this.held = null
    if (this.done) return
    for (const event of held) this.link.sendEvent(event)
    const port = this.port
    if (!listen || port === null || !port.attached) return
    this.uplink = port
    port.router.listens()
  }

  setAudioMode(mode: AudioMode): void {
    this.audioMode = mode
    // Its room splits its receivers again (the room actor owns the router), before the terminal hears the mode.
    const owner = this.owner
    if (owner !== null && this.room !== null && owner.getSnapshot().status === 'active') owner.send({ type: 'AUDIO_MODE', session: this })
    this.sendEvent({ type: 'audio.mode', audioMode: mode })
  }

  tellRoom(event: Readonly<Record<string, unknown>>): void {
    const owner = this.owner
    const room = this.room
    if (owner === null || room === null || owner.getSnapshot().status !== 'active') return
    owner.send({ type: 'BROADCAST_ROOM', room, event: { type: 'participant.event', room, participantId: this.clientId, event } })
  }

  private introduce(room: string | null, sourceId: number | null, participants: ReadonlyArray<ParticipantInfo>) {
    this.introduced = true
    if (this.gate?.held) {
      this.held = []
      this.gate.wait(() => this.sendHeld(true))
    }
    this.sendEvent({
      type: 'session',
      protocol: PROTOCOL_VERSION,
      sessionId: this.sessionId,
      clientId: this.clientId,
      room,
      sourceId,
      audioMode: this.audioMode,
      audio: AUDIO_PARAMETERS,
      participants,
      serverTime: this.clock.now(),
    })
  }

  /** RoomMember: the room took it in. */
  joined(room: string, port: SourcePort, participants: ReadonlyArray<ParticipantInfo>): void {
    const from = this.port?.router.room ?? null
    this.port = port
    if (!this.introduced) this.introduce(room, port.sourceId, participants)
    else this.sendEvent({ type: 'room.changed', from, to: room, sourceId: port.sourceId, participants })
    if (this.held === null) this.uplink = port
  }

  /** A new session the workspace actor placed in no room: introduced, unless something placed it since. */
  introduceUnplaced(): void {
    if (!this.introduced) this.introduce(null, null, [])
  }

  /** The workspace actor placed it in no room (the client has no mapping); it stays connected, silent. */
  unassigned(): void {
    const from = this.port?.router.room ?? null
    this.port = null
    this.uplink = null
    if (!this.introduced) this.introduce(null, null, [])
    else this.sendEvent({ type: 'room.changed', from, to: null, sourceId: null, participants: [] })
  }

  close(reason: HarkError): void {
    if (this.done) return
    // Closed before its introduction was let through: it hears it now, then why it closes.
    this.sendHeld(false)
    this.sendEvent({ type: 'session.closing', code: wireCodesOf(reason).code, message: publicMessage(reason) })
    this.finish(reason)
    this.link.close(reason)
  }

  end(): void {
    this.finish(null)
  }

  /** `reason`: what it was closed with; null when the terminal went away. */
  private finish(reason: HarkError | null): void {
    if (this.done) return
    this.done = true
    const { client, owner } = this
    this.client = null
    this.owner = null
    // The client actor reports the end to the workspace (it may be closing us itself: then it already is);
    // without one, the session tells its workspace itself, once (`done`).
    if (client !== null) {
      if (client.getSnapshot().status === 'active') client.send({ type: 'END', reason })
    } else if (owner !== null && owner.getSnapshot().status === 'active') owner.send({ type: 'SESSION_END', session: this, reason })
  }
}
