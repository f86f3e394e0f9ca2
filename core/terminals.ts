/**
 * The terminal hub: a thin facade over the workspace actors (core/actors/workspace.ts), which own
 * every session and room. A transport hands an authenticated terminal to `open` and gets its
 * session back; agents join and leave rooms through it; committed storage changes become events
 * to the workspace concerned. Everything it answers (sessions, rooms, presence) is read from the
 * actors' snapshots, and `on` subscribes to what they emit — it keeps no state of its own beyond
 * the directory of workspace actors.
 */
import { HashMap, Option } from 'effect'
import { createActor, type ActorRefFrom } from 'xstate'
import { sessionOf, stopWorkspace, workspaceMachine, type WorkspaceEmitted, type WorkspaceEvent } from './actors/workspace.js'
import type { RoomMember } from './actors/room.js'
import type { ClockShape } from './clock.js'
import { ServerShuttingDown } from './errors.js'
import type { ParticipantInfo, ServerEvent } from './events.js'
import type { Logger } from './log.js'
import type { Presence, PresenceEntry } from './presence.js'
import type { TerminalIdentity } from './security/security.js'
import { Session, type OpenOptions, type TerminalLink, type TerminalSession } from './session.js'
import type { ChangeRecord } from './storage/changes.js'
import type { StorageShape } from './storage/storage.js'

type WorkspaceRef = ActorRefFrom<typeof workspaceMachine>

/** A live view of a room for listings. */
export interface RoomView {
  readonly room: string
  readonly participants: ReadonlyArray<ParticipantInfo & { readonly transport: string | null }>
}

type Listener<T extends WorkspaceEmitted['type']> = (event: Extract<WorkspaceEmitted, { type: T }>) => void

export class TerminalHub implements Presence {
  private readonly workspaces = new Map<string, WorkspaceRef>()
  private readonly listeners = new Map<string, Set<(event: WorkspaceEmitted) => void>>()
  private readonly unsubscribe: () => void
  private closing = false

  constructor(
    private readonly storage: StorageShape,
    readonly clock: ClockShape,
    private readonly log: Logger,
  ) {
    this.unsubscribe = storage.onChange((change) => this.applyChange(change))
  }

  /** Hear what every workspace actor announces (now and later ones). Returns the unsubscribe function. */
  on<T extends WorkspaceEmitted['type']>(type: T, listener: Listener<T>): () => void {
    let set = this.listeners.get(type)
    if (!set) this.listeners.set(type, (set = new Set()))
    const entry = listener as (event: WorkspaceEmitted) => void
    set.add(entry)
    return () => set.delete(entry)
  }

  private workspace(workspaceId: string): WorkspaceRef {
    let ref = this.workspaces.get(workspaceId)
    if (!ref) {
      ref = createActor(workspaceMachine, { id: `workspace:${workspaceId}`, clock: this.clock, input: { workspaceId, clock: this.clock } })
      // A listener that throws is logged: xstate would rethrow it out of the event loop.
      ref.on('*', (event) => {
        for (const listener of this.listeners.get(event.type) ?? []) {
          try {
            listener(event)
          } catch (e) {
            this.log.error({ err: e, event: event.type }, 'workspace event listener failed')
          }
        }
      })
      ref.start()
      this.workspaces.set(workspaceId, ref)
    }
    return ref
  }

  private send(workspaceId: string, event: WorkspaceEvent): void {
    this.workspaces.get(workspaceId)?.send(event)
  }

  private snapshot(workspaceId: string) {
    return this.workspaces.get(workspaceId)?.getSnapshot().context
  }

  /** Admit an authenticated terminal. The first event it gets is `session` (or `session.closing`). */
  open(identity: TerminalIdentity, link: TerminalLink, options: OpenOptions = {}): TerminalSession {
    const session = new Session(identity, link, this.clock, options.audioMode ?? 'forward')
    if (this.closing) {
      session.close(new ServerShuttingDown({ message: 'server shutting down' }))
      return session
    }
    const { credential, client } = identity
    this.workspace(identity.workspaceId).send({
      type: 'SESSION_OPEN',
      session,
      room: client.room,
      expiresAt: client.expiresAt ?? (credential.kind === 'token' ? credential.expiresAt : null),
    })
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

  /** Names of the occupied rooms of a workspace, sorted. */
  roomNames(workspaceId: string): string[] {
    const rooms = this.snapshot(workspaceId)?.rooms
    return rooms ? [...HashMap.keys(rooms)].sort() : []
  }

  /** Occupied rooms of a workspace with their members. */
  listRooms(workspaceId: string): RoomView[] {
    return this.roomNames(workspaceId).flatMap((room) => this.roomView(workspaceId, room) ?? [])
  }

  roomView(workspaceId: string, room: string): RoomView | null {
    const context = this.snapshot(workspaceId)
    const ref = context && Option.getOrUndefined(HashMap.get(context.rooms, room))
    if (!ref) return null
    return {
      room,
      participants: [...ref.getSnapshot().context.members.values()].map((e) => ({
        ...e.info,
        transport: e.member.kind === 'terminal' ? (this.get(workspaceId, e.member.id)?.transport ?? null) : null,
      })),
    }
  }

  /** Terminals in a room right now (agents are not counted). */
  terminalCount(workspaceId: string, room: string): number {
    const context = this.snapshot(workspaceId)
    const ref = context && Option.getOrUndefined(HashMap.get(context.rooms, room))
    return ref?.getSnapshot().context.terminals ?? 0
  }

  /** Every open room of every workspace (metrics). */
  *openRooms() {
    for (const ref of this.workspaces.values()) yield* HashMap.values(ref.getSnapshot().context.rooms)
  }

  // ---- Presence: who is online, read from the workspace actors ----

  get(workspaceId: string, clientId: string): PresenceEntry | undefined {
    const context = this.snapshot(workspaceId)
    const client = context && Option.getOrUndefined(HashMap.get(context.sessions, clientId))
    if (!client) return undefined
    const session = sessionOf(client)
    return { ...session.info, room: session.room }
  }

  isOnline(workspaceId: string, clientId: string): boolean {
    const context = this.snapshot(workspaceId)
    return context !== undefined && HashMap.has(context.sessions, clientId)
  }

  list(workspaceId: string): PresenceEntry[] {
    const context = this.snapshot(workspaceId)
    if (!context) return []
    return [...HashMap.values(context.sessions)].map((client) => {
      const session = sessionOf(client)
      return { ...session.info, room: session.room }
    })
  }

  /** The live session of a client, if any. */
  session(workspaceId: string, clientId: string): TerminalSession | undefined {
    const context = this.snapshot(workspaceId)
    const client = context && Option.getOrUndefined(HashMap.get(context.sessions, clientId))
    return client && sessionOf(client)
  }

  get size(): number {
    let n = 0
    for (const ref of this.workspaces.values()) n += HashMap.size(ref.getSnapshot().context.sessions)
    return n
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

  /** A committed change (from this process or another one) as an event to its workspace. */
  private applyChange(change: ChangeRecord): void {
    const { workspaceId, subject } = change
    if (!workspaceId || !subject) return
    const clientId = subject
    switch (change.kind) {
      case 'client.updated':
        if (this.isOnline(workspaceId, clientId)) {
          const client = this.storage.clients.get(workspaceId, clientId)
          if (client) this.send(workspaceId, { type: 'CLIENT_ROOM_CHANGED', clientId, room: client.room })
        }
        return
      case 'client.deleted':
        return this.send(workspaceId, { type: 'CLIENT_DELETED', clientId })
      case 'client.tokensRevoked':
        return this.send(workspaceId, { type: 'CLIENT_TOKENS_REVOKED', clientId })
      case 'devicePassword.reset':
        return this.send(workspaceId, { type: 'DEVICE_PASSWORD_RESET', clientId })
      case 'token.revoked':
        return this.send(workspaceId, { type: 'TOKEN_REVOKED', jti: subject })
      default:
        return
    }
  }
}
