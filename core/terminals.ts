/**
 * The terminal hub: a thin facade over the workspace actors (core/actors/workspace.ts), which own
 * every session and room. A transport hands an authenticated terminal to `open` and gets its
 * session back; agents join and leave rooms through it; the committed changes it subscribes to
 * (a client's room, deletion, revocations) become events to the workspace concerned. What it
 * answers (rooms, sessions, presence) is read from the actors' snapshots, and `on` subscribes to
 * what they emit: it keeps no state of its own beyond the directory of workspace actors and, in a
 * cluster, the node's directory of the other nodes (`remote`), which the workspace actors ask when
 * they open a room.
 */
import * as Context from 'effect/Context'
import * as Effect from 'effect/Effect'
import * as HashMap from 'effect/HashMap'
import * as Layer from 'effect/Layer'
import { createActor, type ActorRefFrom } from 'xstate'
import type { RoomMember } from './actors/room.js'
import type { RoomAgentsEvent, RoomAgentsRef, RoomAgentsRuntime } from './actors/roomAgents.js'
import { liveSession, roomAgentsOf, roomOf, roomView, stopWorkspace, workspaceMachine, type RoomView } from './actors/workspace.js'
import type { WorkspaceAnnouncement, WorkspaceContext, WorkspaceContexts, WorkspaceEvent, WorkspaceEvents } from './actors/workspace.js'
import { Clock, type ClockShape } from './clock.js'
import { ServerShuttingDown } from './errors.js'
import type { RemoteSink } from './dataplane/roomRouter.js'
import type { ParticipantInfo, ServerEvent } from './events.js'
import type { RoomRecording } from './recordings/roomRecorder.js'
import { Log, type Logger } from './log.js'
import { audioDrops, type AudioDrops } from './dataplane/drops.js'
import { overloadGuard, type OverloadListener, type OverloadState } from './dataplane/overload.js'
import { EngineSettings } from './config.js'
import { Metrics } from './metrics.js'
import { presenceOf, PresenceService, type PresenceEntry, type RemoteDirectory } from './presence.js'
import type { TerminalIdentity } from './security/security.js'
import { IntroductionGate, Session, type OpenOptions, type SessionInfo, type TerminalLink, type TerminalSession } from './session.js'
import type { Change } from './storage/changes.js'
import type { ChangeFeed } from './storage/changeFeed.js'
import { Storage } from './storage/storage.js'
import { installTerminalMetrics } from './terminalMetrics.js'

/** The changes that reach live sessions. */
const TERMINAL_CHANGES = ['client.updated', 'client.deleted', 'client.tokensRevoked', 'devicePassword.reset', 'token.revoked'] as const

export class TerminalHub implements WorkspaceContexts, WorkspaceEvents {
  private readonly workspaces = new Map<string, ActorRefFrom<typeof workspaceMachine>>()
  /** Held while usage rows of new sessions wait for their group commit (core/usage/meter.ts). */
  readonly introductions: IntroductionGate
  private readonly listeners = new Map<string, Set<(event: WorkspaceAnnouncement) => void>>()
  private readonly unsubscribe: () => void
  private closing = false
  /** What the other nodes of a cluster announced (a cluster node, core/cluster/cluster.ts); null on a single node. */
  remote: RemoteDirectory | null = null
  /** The agent runtime the rooms' room-agents actors start policy agents with (attachAgents). */
  private agentRuntime: RoomAgentsRuntime | null = null
  private readonly agents: RoomAgentsRuntime = {
    policies: () => this.agentRuntime?.policies() ?? [],
    mayWant: (joining) => this.agentRuntime?.mayWant(joining) ?? false,
    runsPolicies: (workspaceId, room) => this.agentRuntime?.runsPolicies(workspaceId, room) ?? false,
    launch: (launch) => this.agentRuntime?.launch(launch) ?? false,
  }

  constructor(
    changes: ChangeFeed,
    readonly clock: ClockShape,
    private readonly log: Logger,
    drops: AudioDrops | null = null,
  ) {
    this.introductions = new IntroductionGate(drops)
    this.unsubscribe = changes.on(TERMINAL_CHANGES, (change) => this.applyChange(change))
  }

  /** Hear what every workspace actor announces (now and later ones). Returns the unsubscribe function. */
  on<T extends WorkspaceAnnouncement['type']>(type: T, listener: (event: Extract<WorkspaceAnnouncement, { type: T }>) => void): () => void {
    let set = this.listeners.get(type)
    if (!set) this.listeners.set(type, (set = new Set()))
    const entry = listener as (event: WorkspaceAnnouncement) => void
    set.add(entry)
    return () => set.delete(entry)
  }

  private workspace(workspaceId: string) {
    let ref = this.workspaces.get(workspaceId)
    if (!ref) {
      const { clock } = this
      const input = { workspaceId, clock, roomListener: this.announce, remoteMembers: this.remoteMembers, agents: this.agents }
      ref = createActor(workspaceMachine, { id: `workspace:${workspaceId}`, clock, input })
      ref.on('*', this.announce)
      ref.start()
      this.workspaces.set(workspaceId, ref)
    }
    return ref
  }

  /** What a workspace actor opening a room asks: the members the other nodes announced there. */
  private readonly remoteMembers = (workspaceId: string, room: string, joiningId: string): ReadonlyArray<RoomMember> =>
    this.remote?.openingRoom(workspaceId, room, joiningId) ?? []

  /** What the workspace actors and their rooms emit, to this hub's listeners; one that throws is logged (xstate would rethrow it out of the event loop). */
  private readonly announce = (event: WorkspaceAnnouncement): void => {
    for (const listener of this.listeners.get(event.type) ?? []) {
      try {
        listener(event)
      } catch (e) {
        this.log.error({ err: e, event: event.type }, 'workspace event listener failed')
      }
    }
  }

  private send(workspaceId: string, event: WorkspaceEvent): void {
    this.workspaces.get(workspaceId)?.send(event)
  }

  /** A workspace actor's context now (a value: later events do not change it). */
  context(workspaceId: string): WorkspaceContext | undefined {
    return this.workspaces.get(workspaceId)?.getSnapshot().context
  }

  /** Every workspace actor's context now. */
  *contexts(): Iterable<WorkspaceContext> {
    for (const ref of this.workspaces.values()) yield ref.getSnapshot().context
  }

  /** Admit an authenticated terminal. The first event it gets is `session` (or `session.closing`). */
  open(identity: TerminalIdentity, link: TerminalLink, options: OpenOptions = {}): TerminalSession {
    const session = new Session(identity, link, this.clock, options.audioMode ?? 'forward', this.introductions)
    if (this.closing) session.close(new ServerShuttingDown({ message: 'server shutting down' }))
    else {
      const { credential, client } = identity
      const expiresAt = client.expiresAt ?? (credential.kind === 'token' ? credential.expiresAt : null)
      this.workspace(identity.workspaceId).send({ type: 'SESSION_OPEN', session, room: client.room, expiresAt })
    }
    return session
  }

  /** Put any member (an agent) into a room of a workspace. */
  joinRoom(workspaceId: string, room: string, member: RoomMember): void {
    this.workspace(workspaceId).send({ type: 'JOIN_ROOM', room, member })
  }

  leaveRoom(workspaceId: string, room: string, member: RoomMember): void {
    this.send(workspaceId, { type: 'LEAVE_ROOM', room, member })
  }

  /** Send an event to every member of a room. */
  broadcast(workspaceId: string, room: string, event: ServerEvent): void {
    this.send(workspaceId, { type: 'BROADCAST_ROOM', room, event })
  }

  /** The agent runtime (the dispatcher): the rooms' agent policies and how their agents start; null detaches it. */
  attachAgents(runtime: RoomAgentsRuntime | null): void {
    this.agentRuntime = runtime
  }

  /** A room's room-agents actor (which agents it has and why, the roster they read); none when the room has neither. */
  roomAgents(workspaceId: string, room: string): RoomAgentsRef | undefined {
    const context = this.context(workspaceId)
    return context && roomAgentsOf(context, room)
  }

  /**
   * Tell a room's room-agents actor something; `open`: create it if the room has none (an agent is
   * added), `whenRoomOpen`: if the room is open here (a policy's input changed).
   */
  toRoomAgents(workspaceId: string, room: string, event: RoomAgentsEvent, open: boolean | 'whenRoomOpen' = false): void {
    if (open === true && !this.closing) this.workspace(workspaceId).send({ type: 'ROOM_AGENTS', room, event, open })
    else this.send(workspaceId, { type: 'ROOM_AGENTS', room, event, open: open === 'whenRoomOpen' && !this.closing ? open : false })
  }

  /** The cluster's directory of the other nodes (a cluster node's), or null. */
  attachRemote(remote: RemoteDirectory | null): void {
    this.remote = remote
  }

  /** Cluster: the other nodes with members in a room of this node, each sent the room's own frames (the room actor sets them on its router). */
  setRoomRemotes(workspaceId: string, room: string, remotes: ReadonlyArray<RemoteSink>): void {
    this.send(workspaceId, { type: 'ROOM_REMOTES', room, remotes })
  }

  /** Start (a recording) or stop (null) recording a room open on this node (the room actor sets the tap on its router). */
  setRoomRecording(workspaceId: string, room: string, recording: RoomRecording | null): void {
    this.send(workspaceId, { type: 'ROOM_RECORDING', room, recording })
  }

  /**
   * This node's own members of a room (members relayed from other nodes left out), in the order
   * they joined, a terminal with its live session: what a cluster node announces of the room.
   */
  localMembers(workspaceId: string, room: string): Array<{ readonly info: ParticipantInfo; readonly session: SessionInfo | undefined }> {
    const context = this.context(workspaceId)
    const ref = context && roomOf(context, room)
    if (!ref) return []
    const out: Array<{ readonly info: ParticipantInfo; readonly session: SessionInfo | undefined }> = []
    for (const { member, info } of ref.getSnapshot().context.members.values()) {
      if (member.listens === false) continue
      out.push({ info, session: member.kind === 'terminal' ? liveSession(context, member.id)?.info : undefined })
    }
    return out
  }

  /** Names of the occupied rooms of a workspace (cluster-wide in a cluster), sorted. */
  roomNames(workspaceId: string): string[] {
    const context = this.context(workspaceId)
    const local = context ? [...HashMap.keys(context.rooms)] : []
    if (!this.remote) return local.sort()
    return [...new Set([...local, ...this.remote.roomNames(workspaceId)])].sort()
  }

  /** Who is in a room of a workspace now (on every node in a cluster); null when nobody is. */
  roomView(workspaceId: string, room: string): RoomView | null {
    const context = this.context(workspaceId)
    const local = context ? roomView(context, room) : null
    if (!this.remote) return local
    // Another node's members are relayed into this node's copy of the room, whose actor hears their spurts too.
    const speaking = (context && roomOf(context, room)?.getSnapshot().context.speaking) ?? new Set<string>()
    const remote = this.remote.participants(workspaceId, room).map((p) => ({ ...p, speaking: speaking.has(p.id) }))
    const participants = [...(local?.participants ?? []), ...remote]
    return participants.length > 0 ? { room, participants } : null
  }

  /** The presence entry of a client's session on this node. */
  presenceEntry(workspaceId: string, clientId: string): PresenceEntry | undefined {
    const session = this.sessionOf(workspaceId, clientId)
    return session && { ...session.info, room: session.room }
  }

  /** Terminals in a room right now (agents are not counted). */
  terminalCount(workspaceId: string, room: string): number {
    const context = this.context(workspaceId)
    return (context && roomOf(context, room)?.getSnapshot().context.terminals) ?? 0
  }


  /** The live session of a client, if any. */
  session(workspaceId: string, clientId: string): TerminalSession | undefined {
    return this.sessionOf(workspaceId, clientId)
  }

  private sessionOf(workspaceId: string, clientId: string): Session | undefined {
    const context = this.context(workspaceId)
    return context && liveSession(context, clientId)
  }

  /** Close every session and refuse new ones (shutdown). */
  closeAll(): void {
    if (this.closing) return
    this.closing = true
    for (const ref of this.workspaces.values()) ref.send({ type: 'SHUTDOWN' })
  }

  stop(): void {
    this.unsubscribe()
    this.closeAll()
    for (const ref of this.workspaces.values()) stopWorkspace(ref)
    this.workspaces.clear()
  }

  /**
   * A committed change (from this process, another one, or another node) as an event to its
   * workspace. A room change moves the client to the room the change carries (as its writer
   * wrote it), never one read here: a replica that has not caught up yet would move it back; and
   * only when it is newer (by change id) than the last move applied to the session.
   * Other kinds are not the hub's.
   */
  applyChange(change: Change): void {
    switch (change.kind) {
      case 'client.updated': {
        const { workspaceId, subject, after, id } = change
        const session = this.sessionOf(workspaceId, subject)
        // A move older than one already applied is stale (e.g. the poll reading another node's
        // earlier write after this node's later one): applying it would move the terminal back.
        if (!session || id <= session.roomChangeId) return
        session.roomChangeId = id
        return this.send(workspaceId, { type: 'CLIENT_ROOM_CHANGED', clientId: subject, room: after.room })
      }
      case 'client.deleted':
        return this.send(change.workspaceId, { type: 'CLIENT_DELETED', clientId: change.subject })
      case 'client.tokensRevoked':
        return this.send(change.workspaceId, { type: 'CLIENT_TOKENS_REVOKED', clientId: change.subject })
      case 'devicePassword.reset':
        return this.send(change.workspaceId, { type: 'DEVICE_PASSWORD_RESET', clientId: change.subject })
      case 'token.revoked':
        return this.send(change.workspaceId, { type: 'TOKEN_REVOKED', jti: change.subject, clientId: change.clientId })
    }
  }
}

/** The engine's terminal hub as an Effect service; it closes every session when the engine stops. */
export class Terminals extends Context.Service<Terminals, TerminalHub>()('hark/Terminals') {}

export const terminalsLayer = Layer.effect(
  Terminals,
  Effect.acquireRelease(
    Effect.gen(function* () {
      const metrics = yield* Metrics
      const hub = new TerminalHub((yield* Storage).feed, yield* Clock, yield* Log, audioDrops(metrics))
      // The transports' overload guard, made here first so that it runs on the configured limits.
      const guard = overloadGuard(metrics, (yield* EngineSettings).overload)
      const unwatch = guard.onChange(tellDegraded(hub))
      return { hub, guard, unwatch, uninstallMetrics: installTerminalMetrics(hub, metrics) }
    }),
    ({ hub, guard, unwatch, uninstallMetrics }) => Effect.sync(() => (unwatch(), guard.stop(), uninstallMetrics(), hub.stop())),
  ).pipe(Effect.map(({ hub }) => hub)),
)

/** What a room is told when the engine starts or stops shedding its audio (spec/terminal-protocol.md, room.degraded). */
export const degradedEvent = (room: string, state: OverloadState): ServerEvent => ({
  type: 'room.degraded',
  room,
  degraded: state.degraded,
  reason: 'server_overload',
  shedPercent: Math.round(state.shed * 100),
})

/**
 * The hub's overload listener: each room of a terminal whose frames were shed is told once that
 * it is degraded, and when it is over, every room told hears that.
 */
const tellDegraded = (hub: TerminalHub): OverloadListener => {
  const told = new Map<string, Set<string>>()
  return (state, shedFrom) => {
    if (!state.degraded) {
      for (const [workspaceId, rooms] of told) for (const room of rooms) hub.broadcast(workspaceId, room, degradedEvent(room, state))
      told.clear()
      return
    }
    for (const { workspaceId, room } of shedFrom) {
      if (room === null) continue
      let rooms = told.get(workspaceId)
      if (!rooms) told.set(workspaceId, (rooms = new Set()))
      if (rooms.has(room)) continue
      rooms.add(room)
      hub.broadcast(workspaceId, room, degradedEvent(room, state))
    }
  }
}

/** Presence reads the same workspace actors. */
export const presenceLayer = Layer.effect(
  PresenceService,
  Effect.gen(function* () {
    return presenceOf(yield* Terminals)
  }),
)
