/**
 * What the workspace actor (workspace.ts) is told and what it announces: its events, and the
 * announcements it and its rooms emit. Types only; workspace.ts re-exports them.
 */
import type { HarkError } from '../errors.js'
import type { RemoteSink } from '../dataplane/roomRouter.js'
import type { ServerEvent } from '../events.js'
import type { RoomRecording } from '../recordings/roomRecorder.js'
import type { Session, SessionInfo } from '../session.js'
import type { ClientEndedEvent } from './client.js'
import type { RoomEmitted, RoomMember, RoomParentEvent } from './room.js'
import type { RoomAgentsEvent, RoomAgentsParentEvent } from './roomAgents.js'

export type WorkspaceEvent =
  | { type: 'SESSION_OPEN'; session: Session; room: string | null; expiresAt: number | null }
  | ClientEndedEvent
  | { type: 'CLIENT_ROOM_CHANGED'; clientId: string; room: string | null }
  | { type: 'CLIENT_DELETED'; clientId: string }
  | { type: 'CLIENT_TOKENS_REVOKED'; clientId: string }
  | { type: 'DEVICE_PASSWORD_RESET'; clientId: string }
  /** `clientId`: the token's client (the change says it); null when unknown: every session is looked at. */
  | { type: 'TOKEN_REVOKED'; jti: string; clientId: string | null }
  | { type: 'JOIN_ROOM'; room: string; member: RoomMember }
  | { type: 'LEAVE_ROOM'; room: string; member: RoomMember }
  | { type: 'BROADCAST_ROOM'; room: string; event: ServerEvent }
  /** A session switched its audio mode: its room splits its receivers again. */
  | { type: 'AUDIO_MODE'; session: Session }
  /** Cluster: the other nodes with members in a room, where its own frames go. */
  | { type: 'ROOM_REMOTES'; room: string; remotes: ReadonlyArray<RemoteSink> }
  /** Start (a recording) or stop (null) recording a room open here. */
  | { type: 'ROOM_RECORDING'; room: string; recording: RoomRecording | null }
  | RoomParentEvent
  /** To a room's room-agents actor; `open`: create it when the room has none (an agent is added). */
  /** `open`: create the room's room-agents actor if it has none (`whenRoomOpen`: if the room is open here). */
  | { type: 'ROOM_AGENTS'; room: string; event: RoomAgentsEvent; open?: boolean | 'whenRoomOpen' }
  | RoomAgentsParentEvent
  | { type: 'SHUTDOWN'; reason?: HarkError }
  /** Internal: a new session placed in no room is introduced after its announcement (sent to itself). */
  | { type: 'INTRODUCE_UNPLACED'; session: Session }

/** Frame counts of a room's router, final when it closes (metrics keep them). */
export interface RoomTotals {
  readonly framesIn: number
  readonly framesOut: number
  /** Frames sent to native (uWS pub/sub) receivers with one publish each; their deliveries are in framesOut. */
  readonly framesPublished: number
  readonly framesDecoded: number
  readonly framesEncoded: number
}

/** What the workspace actor announces (subscribe with `actor.on(type, …)`). */
export type WorkspaceEmitted =
  /** Admitted and placed by its client's mapping in `room` (null: no room). */
  | { type: 'session.opened'; session: SessionInfo; room: string | null }
  /** A live session moved from one room to another because its client's mapping changed (either may be null). */
  | { type: 'session.moved'; session: SessionInfo; from: string | null; to: string | null }
  /**
   * A session ended. `room`: the room it was in last (null: none); `reason`: the error it was
   * closed with (a revocation, a newer session, shutdown, a protocol error …), null when the terminal went away.
   */
  | { type: 'session.ended'; session: SessionInfo; room: string | null; reason: HarkError | null }
  | { type: 'room.closed'; workspaceId: string; room: string; totals: RoomTotals }

/** What a workspace's actors announce: its own events and its rooms'. */
export type WorkspaceAnnouncement = WorkspaceEmitted | RoomEmitted
