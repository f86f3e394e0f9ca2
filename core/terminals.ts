/**
 * The terminal hub: where a transport hands over an authenticated terminal. It opens a session
 * (newer session of the same client wins), places it through the workspace and room actors by
 * the stored client-to-room mapping, keeps presence, and applies control changes to live
 * sessions: room switches, deletion, token revocation, device-password resets, expiry.
 *
 * Transports implement `TerminalLink` (how to reach the terminal) and get a `TerminalSession`
 * back (how the terminal reaches the room). `pushAudio` is the data plane: plain calls only.
 */
import { Context, Effect, Layer } from 'effect'
import { createActor, type ActorRefFrom } from 'xstate'
import type { Registry } from 'prom-client'
import { Counter, Gauge } from 'prom-client'
import { clientMachine } from './actors/client.js'
import { stopWorkspace, workspaceMachine, type RoomRef } from './actors/workspace.js'
import type { RoomMember } from './actors/room.js'
import { Clock, type ClockShape } from './clock.js'
import type { SourcePort } from './dataplane/roomRouter.js'
import { MAX_OPUS_BYTES } from './dataplane/frame.js'
import {
  ClientDeleted,
  DevicePasswordReset,
  ServerShuttingDown,
  SessionReplaced,
  TokenExpired,
  TokenRevoked,
  wireCodesOf,
  publicMessage,
  type HarkError,
} from './errors.js'
import { PROTOCOL_VERSION, type AudioMode, type AudioParameters, type ParticipantInfo, type ServerEvent } from './events.js'
import { randomBase62 } from './ids.js'
import { Log, type Logger } from './log.js'
import { Metrics } from './metrics.js'
import { PresenceService, type Presence } from './presence.js'
import type { TerminalIdentity } from './security/security.js'
import type { ChangeRecord } from './storage/changes.js'
import { Storage, type StorageShape } from './storage/storage.js'

export const AUDIO_PARAMETERS: AudioParameters = {
  codec: 'opus',
  sampleRate: 16000,
  channels: 1,
  frameMs: [20, 60],
  maxOpusBytes: MAX_OPUS_BYTES,
}

/** How the hub reaches a terminal; implemented by each transport. */
export interface TerminalLink {
  /** Transport name for presence and metrics ("websocket", "mqtt", "webrtc"). */
  readonly transport: string
  /** Data plane: a downlink frame. Must not throw; drop (and count) when the terminal is backed up. */
  deliverAudio(frame: Uint8Array): void
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
  /**
   * Data plane: one uplink frame (V|level byte + Opus), already checked (core/terminalInput.ts);
   * `now` is its receive time (performance.now()) when the transport has read it already.
   */
  pushAudio(uplink: Uint8Array, now?: number): void
  /** Ask for per-source frames (forward) or one mixed stream (mixed). */
  setAudioMode(mode: AudioMode): void
  /** The terminal is gone (socket closed, keepalive lost). Idempotent. */
  end(): void
  /** Close from the server side with a reason (sends session.closing first). Idempotent. */
  close(reason: HarkError): void
}

export interface OpenOptions {
  readonly audioMode?: AudioMode
}

/** A session lifecycle change, for listeners such as usage metering (control plane only). */
export interface SessionLifecycleEvent {
  readonly type: 'opened' | 'ended'
  readonly sessionId: string
  readonly workspaceId: string
  readonly clientId: string
  readonly transport: string
}

/** The number of terminals in a room changed (control plane; room default agents listen). */
export interface RoomOccupancyEvent {
  readonly workspaceId: string
  readonly room: string
  readonly terminals: number
}

/** A live view of a room for listings. */
export interface RoomView {
  readonly room: string
  readonly participants: ReadonlyArray<ParticipantInfo & { readonly transport: string | null }>
}

const TIMER_MAX_MS = 2 ** 31 - 1

class Session implements TerminalSession, RoomMember {
  readonly sessionId = `ses_${randomBase62(16)}`
  readonly kind = 'terminal' as const
  readonly name: string | null
  route: SourcePort | null = null
  room: string | null = null
  audioMode: AudioMode
  private introduced = false
  private done = false
  private expiryTimer: NodeJS.Timeout | undefined
  /** Its client actor (place in the workspace); set by the hub right after construction. */
  actor: ActorRefFrom<typeof clientMachine> | null = null

  constructor(
    readonly identity: TerminalIdentity,
    readonly link: TerminalLink,
    private readonly hub: TerminalHub,
    audioMode: AudioMode,
  ) {
    this.name = identity.client.name
    this.audioMode = audioMode
    this.audioSink = link.deliverAudio.bind(link)
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

  pushAudio(uplink: Uint8Array, now = performance.now()): void {
    const route = this.route
    if (route !== null) route.router.forward(route, uplink, now)
  }

  deliver(frame: Uint8Array): void {
    this.link.deliverAudio(frame)
  }

  /** Straight to the transport: one call per delivered frame instead of three. */
  readonly audioSink: (frame: Uint8Array) => void

  sendEvent(event: ServerEvent): void {
    if (!this.done) this.link.sendEvent(event)
  }

  setAudioMode(mode: AudioMode): void {
    this.audioMode = mode
    // The room's sinks read audioMode through a getter; the router only needs to re-split them.
    this.route?.router.refreshAudioModes()
    this.sendEvent({ type: 'audio.mode', audioMode: mode })
  }

  private introduce(room: string | null, sourceId: number | null, participants: ReadonlyArray<ParticipantInfo>) {
    this.introduced = true
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
      serverTime: this.hub.clock.now(),
    })
  }

  joined(room: string, port: SourcePort, participants: ReadonlyArray<ParticipantInfo>): void {
    const from = this.room
    this.route = port
    this.room = room
    this.hub.moved(this, room)
    if (!this.introduced) this.introduce(room, port.sourceId, participants)
    else this.sendEvent({ type: 'room.changed', from, to: room, sourceId: port.sourceId, participants })
  }

  unassigned(from: string | null): void {
    this.route = null
    this.room = null
    this.hub.moved(this, null)
    if (!this.introduced) this.introduce(null, null, [])
    else this.sendEvent({ type: 'room.changed', from, to: null, sourceId: null, participants: [] })
  }

  armExpiry(expiresAt: number | null): void {
    if (expiresAt === null) return
    const delay = expiresAt - this.hub.clock.now()
    if (delay > TIMER_MAX_MS) return
    this.expiryTimer = setTimeout(() => this.close(new TokenExpired({ message: 'credential expired' })), Math.max(0, delay))
    this.expiryTimer.unref()
  }

  close(reason: HarkError): void {
    if (this.done) return
    this.sendEvent({ type: 'session.closing', code: wireCodesOf(reason).code, message: publicMessage(reason) })
    this.finish()
    this.link.close(reason)
  }

  end(): void {
    this.finish()
  }

  private finish(): void {
    if (this.done) return
    this.done = true
    this.route = null
    clearTimeout(this.expiryTimer)
    this.hub.ended(this)
  }
}

export class TerminalHub {
  private readonly workspaces = new Map<string, ActorRefFrom<typeof workspaceMachine>>()
  /** workspaceId -> clientId -> live session */
  private readonly sessions = new Map<string, Map<string, Session>>()
  private readonly byJti = new Map<string, Session>()
  private readonly rooms = new Map<string, Map<string, RoomRef>>()
  private readonly unsubscribe: () => void
  private readonly lifecycleListeners = new Set<(event: SessionLifecycleEvent) => void>()
  private readonly occupancyListeners = new Set<(event: RoomOccupancyEvent) => void>()
  /** workspaceId -> room -> sessionIds of the terminals in it; sessionId -> its room. */
  private readonly terminalsInRoom = new Map<string, Map<string, Set<string>>>()
  private readonly roomOfSession = new Map<string, string>()
  private readonly sessionGauge: Gauge
  private readonly opened: Counter
  private readonly closed: Counter

  constructor(
    private readonly storage: StorageShape,
    readonly clock: ClockShape,
    private readonly presence: Presence,
    private readonly log: Logger,
    metrics: Registry,
  ) {
    this.unsubscribe = storage.onChange((change) => this.applyChange(change))
    this.sessionGauge = new Gauge({ name: 'hark_sessions', help: 'Live terminal sessions', labelNames: ['transport'], registers: [metrics] })
    this.opened = new Counter({ name: 'hark_sessions_opened_total', help: 'Terminal sessions opened', labelNames: ['transport'], registers: [metrics] })
    this.closed = new Counter({ name: 'hark_sessions_closed_total', help: 'Terminal sessions ended', labelNames: ['transport'], registers: [metrics] })
    const hub = this
    new Gauge({
      name: 'hark_rooms',
      help: 'Occupied rooms',
      registers: [metrics],
      collect() {
        let n = 0
        for (const rooms of hub.rooms.values()) n += rooms.size
        this.set(n)
      },
    })
    new Counter({
      name: 'hark_audio_frames_routed_total',
      help: 'Audio frames received from sources and delivered to sinks by room routers',
      labelNames: ['direction'],
      registers: [metrics],
      collect() {
        let framesIn = 0
        let framesOut = 0
        for (const rooms of hub.rooms.values()) {
          for (const ref of rooms.values()) {
            framesIn += ref.getSnapshot().context.router.framesIn
            framesOut += ref.getSnapshot().context.router.framesOut
          }
        }
        this.reset()
        this.inc({ direction: 'in' }, framesIn + hub.retiredFramesIn)
        this.inc({ direction: 'out' }, framesOut + hub.retiredFramesOut)
      },
    })
    new Counter({
      name: 'hark_audio_mixer_frames_total',
      help: 'Opus frames decoded and encoded by room mixers for receivers of the mixed stream',
      labelNames: ['op'],
      registers: [metrics],
      collect() {
        let decoded = hub.retiredDecoded
        let encoded = hub.retiredEncoded
        for (const rooms of hub.rooms.values()) {
          for (const ref of rooms.values()) {
            decoded += ref.getSnapshot().context.router.mixStats.framesDecoded
            encoded += ref.getSnapshot().context.router.mixStats.framesEncoded
          }
        }
        this.reset()
        this.inc({ op: 'decode' }, decoded)
        this.inc({ op: 'encode' }, encoded)
      },
    })
  }

  /** Hear sessions open and end (usage metering, audit). Returns the unsubscribe function. */
  onSession(listener: (event: SessionLifecycleEvent) => void): () => void {
    this.lifecycleListeners.add(listener)
    return () => this.lifecycleListeners.delete(listener)
  }

  /** Hear the terminal count of rooms change (agents are not counted). Returns the unsubscribe function. */
  onRoomOccupancy(listener: (event: RoomOccupancyEvent) => void): () => void {
    this.occupancyListeners.add(listener)
    return () => this.occupancyListeners.delete(listener)
  }

  /** Terminals in a room right now. */
  terminalCount(workspaceId: string, room: string): number {
    return this.terminalsInRoom.get(workspaceId)?.get(room)?.size ?? 0
  }

  private occupy(session: Session, room: string | null): void {
    const previous = this.roomOfSession.get(session.sessionId) ?? null
    if (previous === room) return
    const rooms = this.terminalsInRoom.get(session.workspaceId) ?? new Map<string, Set<string>>()
    this.terminalsInRoom.set(session.workspaceId, rooms)
    const changed: Array<[string, number]> = []
    if (previous !== null) {
      const set = rooms.get(previous)
      set?.delete(session.sessionId)
      if (set?.size === 0) rooms.delete(previous)
      this.roomOfSession.delete(session.sessionId)
      changed.push([previous, set?.size ?? 0])
    }
    if (room !== null) {
      let set = rooms.get(room)
      if (!set) rooms.set(room, (set = new Set()))
      set.add(session.sessionId)
      this.roomOfSession.set(session.sessionId, room)
      changed.push([room, set.size])
    }
    if (rooms.size === 0) this.terminalsInRoom.delete(session.workspaceId)
    for (const [r, terminals] of changed) {
      for (const listener of this.occupancyListeners) {
        try {
          listener({ workspaceId: session.workspaceId, room: r, terminals })
        } catch (e) {
          this.log.error({ err: e, room: r }, 'room occupancy listener failed')
        }
      }
    }
  }

  private lifecycle(type: SessionLifecycleEvent['type'], session: Session): void {
    const event = {
      type,
      sessionId: session.sessionId,
      workspaceId: session.workspaceId,
      clientId: session.clientId,
      transport: session.link.transport,
    }
    for (const listener of this.lifecycleListeners) {
      try {
        listener(event)
      } catch (e) {
        this.log.error({ err: e, sessionId: session.sessionId }, `session ${type} listener failed`)
      }
    }
  }

  /** Frame counts of rooms that have closed, so the routed counter never goes backwards. */
  private retiredFramesIn = 0
  private retiredFramesOut = 0
  private retiredDecoded = 0
  private retiredEncoded = 0

  private workspace(workspaceId: string) {
    let ref = this.workspaces.get(workspaceId)
    if (!ref) {
      ref = createActor(workspaceMachine, {
        input: {
          workspaceId,
          now: () => performance.now(),
          roomLifecycle: (room, state, roomRef) => {
            let rooms = this.rooms.get(workspaceId)
            if (!rooms) this.rooms.set(workspaceId, (rooms = new Map()))
            if (state === 'opened') rooms.set(room, roomRef)
            else {
              const router = roomRef.getSnapshot().context.router
              this.retiredFramesIn += router.framesIn
              this.retiredFramesOut += router.framesOut
              this.retiredDecoded += router.mixStats.framesDecoded
              this.retiredEncoded += router.mixStats.framesEncoded
              rooms.delete(room)
            }
          },
        },
      })
      ref.start()
      this.workspaces.set(workspaceId, ref)
    }
    return ref
  }

  /** Admit an authenticated terminal. The first event it gets is `session`. */
  open(identity: TerminalIdentity, link: TerminalLink, options: OpenOptions = {}): TerminalSession {
    const session = new Session(identity, link, this, options.audioMode ?? 'forward')
    const { workspaceId, clientId } = identity
    let clients = this.sessions.get(workspaceId)
    if (!clients) this.sessions.set(workspaceId, (clients = new Map()))
    const previous = clients.get(clientId)
    clients.set(clientId, session)
    previous?.close(new SessionReplaced({ message: 'replaced by a newer session of the same client' }))
    if (identity.credential.kind === 'token') this.byJti.set(identity.credential.jti, session)
    this.presence.set({
      sessionId: session.sessionId,
      workspaceId,
      clientId,
      transport: link.transport,
      connectedAt: this.clock.now(),
      room: null,
    })
    this.sessionGauge.inc({ transport: link.transport })
    this.opened.inc({ transport: link.transport })
    this.lifecycle('opened', session)
    this.log.debug({ workspaceId, clientId, sessionId: session.sessionId, transport: link.transport }, 'session opened')
    // The client actor is the hub's, not a child of the workspace actor: xstate copies a parent's
    // children object on every spawn and stop, which made connect/disconnect storms O(n²).
    const workspace = this.workspace(workspaceId)
    session.actor = createActor(clientMachine, {
      id: `session:${session.sessionId}`,
      input: {
        member: session,
        room: identity.client.room,
        unassigned: (from) => session.unassigned(from),
        workspace,
      },
    })
    session.actor.start()
    session.armExpiry(identity.client.expiresAt ?? (identity.credential.kind === 'token' ? identity.credential.expiresAt : null))
    return session
  }

  /** Session bookkeeping after a room change (called by the session). */
  moved(session: Session, room: string | null): void {
    const entry = this.presence.get(session.workspaceId, session.clientId)
    if (entry?.sessionId === session.sessionId) entry.room = room
    this.occupy(session, room)
  }

  /** Session bookkeeping after it ended (called by the session). */
  ended(session: Session): void {
    const clients = this.sessions.get(session.workspaceId)
    if (clients?.get(session.clientId) === session) clients.delete(session.clientId)
    if (session.identity.credential.kind === 'token' && this.byJti.get(session.identity.credential.jti) === session) {
      this.byJti.delete(session.identity.credential.jti)
    }
    this.presence.remove(session.workspaceId, session.clientId, session.sessionId)
    this.occupy(session, null)
    this.log.debug({ workspaceId: session.workspaceId, clientId: session.clientId, sessionId: session.sessionId }, 'session ended')
    this.sessionGauge.dec({ transport: session.link.transport })
    this.closed.inc({ transport: session.link.transport })
    this.lifecycle('ended', session)
    const actor = session.actor
    session.actor = null
    if (actor) {
      actor.send({ type: 'END' })
      actor.stop()
    }
  }

  /** The live session of a client, if any. */
  session(workspaceId: string, clientId: string): TerminalSession | undefined {
    return this.sessions.get(workspaceId)?.get(clientId)
  }

  /** Put any member (an agent) into a room of a workspace. */
  joinRoom(workspaceId: string, room: string, member: RoomMember): void {
    this.workspace(workspaceId).send({ type: 'JOIN_ROOM', room, member })
  }

  leaveRoom(workspaceId: string, room: string, member: RoomMember): void {
    this.workspaces.get(workspaceId)?.send({ type: 'LEAVE_ROOM', room, member })
  }

  /** Send an event to every member of a room. */
  broadcast(workspaceId: string, room: string, event: ServerEvent): void {
    this.workspaces.get(workspaceId)?.send({ type: 'BROADCAST_ROOM', room, event })
  }

  /** Names of the occupied rooms of a workspace, sorted. */
  roomNames(workspaceId: string): string[] {
    return [...(this.rooms.get(workspaceId)?.keys() ?? [])].sort()
  }

  /** Occupied rooms of a workspace with their members. */
  listRooms(workspaceId: string): RoomView[] {
    return [...(this.rooms.get(workspaceId)?.keys() ?? [])].sort().map((room) => this.roomView(workspaceId, room)!)
  }

  roomView(workspaceId: string, room: string): RoomView | null {
    const ref = this.rooms.get(workspaceId)?.get(room)
    if (!ref) return null
    const clients = this.sessions.get(workspaceId)
    return {
      room,
      participants: [...ref.getSnapshot().context.members.values()].map((e) => ({
        ...e.info,
        transport: e.member.kind === 'terminal' ? (clients?.get(e.member.id)?.link.transport ?? null) : null,
      })),
    }
  }

  get sessionCount(): number {
    let n = 0
    for (const clients of this.sessions.values()) n += clients.size
    return n
  }

  /** Close every session (shutdown). */
  closeAll(reason: HarkError = new ServerShuttingDown({ message: 'server shutting down' })): void {
    for (const clients of this.sessions.values()) for (const session of [...clients.values()]) session.close(reason)
  }

  stop(): void {
    this.unsubscribe()
    this.closeAll()
    for (const ref of this.workspaces.values()) stopWorkspace(ref)
    this.workspaces.clear()
  }

  /** Apply a committed change (from this process or another one) to live sessions. */
  private applyChange(change: ChangeRecord): void {
    const { workspaceId, subject } = change
    if (!workspaceId || !subject) return
    const live = this.sessions.get(workspaceId)?.get(subject)
    switch (change.kind) {
      case 'client.updated': {
        if (!live) return
        const client = this.storage.clients.get(workspaceId, subject)
        if (client) live.actor?.send({ type: 'ASSIGN', room: client.room })
        return
      }
      case 'client.deleted':
        live?.close(new ClientDeleted({ message: 'client deleted' }))
        return
      case 'client.tokensRevoked':
        if (live?.identity.credential.kind === 'token') live.close(new TokenRevoked({ message: 'token revoked' }))
        return
      case 'devicePassword.reset':
        if (live?.identity.credential.kind === 'devicePassword') {
          live.close(new DevicePasswordReset({ message: 'device password was reset' }))
        }
        return
      case 'token.revoked': {
        const session = this.byJti.get(subject)
        if (session && session.workspaceId === workspaceId) session.close(new TokenRevoked({ message: 'token revoked' }))
        return
      }
      default:
        return
    }
  }
}

/** The engine's terminal hub as an Effect service; it closes every session when the engine stops. */
export class Terminals extends Context.Service<Terminals, TerminalHub>()('hark/Terminals') {}

export const terminalsLayer = Layer.effect(
  Terminals,
  Effect.acquireRelease(
    Effect.gen(function* () {
      return new TerminalHub(yield* Storage, yield* Clock, yield* PresenceService, yield* Log, yield* Metrics)
    }),
    (hub) => Effect.sync(() => hub.stop()),
  ),
)
