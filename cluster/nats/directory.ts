/**
 * Who is in which room across the cluster (spec/cluster.md, The shape): what this node announces of
 * each room it has members in (its room unit on `hark.dir.<node>`, after the actor step that
 * changed them), the units the other nodes announce, and this node's copy of each shared room —
 * a relayed member (core/cluster/relayed.ts) per member of another node, and the room's remote
 * sinks (each other node with members there gets this node's frames once).
 *
 * It writes no room: relayed members join and leave as events to the workspace actor, the remote
 * sinks reach the room actor as an event (`TerminalHub.setRoomRemotes`), and a room that opens
 * here asks `openingRoom` for the members already elsewhere (the workspace actor has them join
 * first). It is also the node's `RemoteDirectory`: the other nodes' rooms, members and sessions
 * for listings and presence.
 */
import type { RoomMember } from '../../core/actors/room.js'
import { RelayedMember, type RelayedInfo } from '../../core/cluster/relayed.js'
import type { RemoteSink } from '../../core/dataplane/roomRouter.js'
import type { ParticipantInfo } from '../../core/events.js'
import type { PresenceEntry, RemoteDirectory } from '../../core/presence.js'
import type { Link } from './link.js'
import type { Peer, Peers } from './peers.js'
import { keyOf, S, splitKey, type Unit } from './protocol.js'
import type { RoomLeases } from './roomLeases.js'

/** This node's copy of a room it has members in. */
interface LocalRoom {
  readonly ws: string
  readonly room: string
  /** Its number in this node's relay messages (wire.ts). */
  readonly tag: number
  /** peer\0tag\0memberId\0sourceId -> relayed member. */
  readonly proxies: Map<string, { member: RelayedMember; peer: Peer; relayKey: number }>
  /** The unit last published, as JSON ('' : publish it again). */
  published: string
}

export class Directory implements RemoteDirectory {
  private readonly rooms = new Map<string, LocalRoom>()
  private readonly dirty = new Set<string>()
  private flushScheduled = false
  private nextTag = 1
  private sessionIndex: Map<string, Map<string, PresenceEntry>> | null = null

  constructor(
    private readonly link: Link,
    private readonly peers: Peers,
    private readonly leases: RoomLeases,
  ) {}

  /** The rooms this node has members in, by key. */
  roomKeys(): Iterable<string> {
    return this.rooms.keys()
  }

  hasRoom(key: string): boolean {
    return this.rooms.has(key)
  }

  // ---- What this node announces, and the copies it keeps ----

  /** A room's members here changed (or its lease): announce it after the actor step that changed it. */
  markDirty(key: string): void {
    this.dirty.add(key)
    if (this.flushScheduled) return
    this.flushScheduled = true
    // After the actor step that announced it: the room's snapshot then says who is in it.
    setImmediate(() => {
      this.flushScheduled = false
      const keys = [...this.dirty]
      this.dirty.clear()
      for (const key of keys) this.refresh(key)
    })
  }

  /** Publish every unit again (`hark.sync`, a reconnect). */
  republish(): void {
    for (const local of this.rooms.values()) local.published = ''
    for (const key of this.rooms.keys()) this.markDirty(key)
  }

  /** Say in the room's unit whether this node holds its lease (published if it changed). */
  ownershipMoved(key: string): void {
    if (this.rooms.has(key)) this.markDirty(key)
  }

  private refresh(key: string): void {
    const { link } = this
    if (link.stopped) return
    const [ws, room] = splitKey(key)
    const { hub } = link.o
    const members = hub.localMembers(ws, room)
    let local = this.rooms.get(key)
    if (members.length === 0) {
      if (!local) return
      this.rooms.delete(key)
      link.publish(S.dir(link.nodeId), { node: link.nodeId, incarnation: link.incarnation, ws, room, tag: local.tag, members: [] } satisfies Unit)
      for (const { member, peer, relayKey } of local.proxies.values()) {
        peer.sources.delete(relayKey)
        hub.leaveRoom(ws, room, member)
      }
      local.proxies.clear()
      void this.leases.release(key)
      return
    }
    const fresh = !local
    local ??= this.openLocal(key, ws, room)
    const infos: RelayedInfo[] = members.map(({ info, session }) =>
      session
        ? { id: info.id, kind: info.kind, name: info.name, sourceId: info.sourceId, sessionId: session.sessionId, transport: session.transport, connectedAt: session.connectedAt }
        : { id: info.id, kind: info.kind, name: info.name, sourceId: info.sourceId },
    )
    const unit: Unit = { node: link.nodeId, incarnation: link.incarnation, ws, room, tag: local.tag, members: infos, owner: this.leases.holds(key) }
    const json = JSON.stringify(unit)
    if (json !== local.published) {
      local.published = json
      link.nc.publish(S.dir(link.nodeId), Buffer.from(json))
    }
    this.reconcile(local, new Set(members.map((e) => e.info.id)))
    if (fresh) void this.leases.acquire(key)
  }

  private openLocal(key: string, ws: string, room: string): LocalRoom {
    const local: LocalRoom = { ws, room, tag: this.nextTag++, proxies: new Map(), published: '' }
    if (this.nextTag > 0xffffffff) this.nextTag = 1
    this.rooms.set(key, local)
    return local
  }

  /** Relay a member another node announced into this node's copy of a room; `join`: it joins the room actor now. */
  private addProxy(local: LocalRoom, peer: Peer, unit: Unit, info: RelayedInfo, join: boolean): string {
    const id = `${peer.node}\0${unit.tag}\0${info.id}\0${info.sourceId}`
    if (local.proxies.has(id)) return id
    const member = new RelayedMember(peer.node, info)
    const relayKey = unit.tag * 65536 + info.sourceId
    peer.sources.set(relayKey, member)
    local.proxies.set(id, { member, peer, relayKey })
    if (join) this.link.o.hub.joinRoom(local.ws, local.room, member)
    return id
  }

  /**
   * RemoteDirectory: a room of this node is opening for `joiningId` (its workspace actor asks). The
   * members the other nodes announced in it are relayed into this node's copy and returned, to
   * join the new room before `joiningId`, so its `session` lists the whole room, on every
   * transport. The next refresh publishes the unit and sets the remote sinks.
   */
  openingRoom(ws: string, room: string, joiningId: string): ReadonlyArray<RoomMember> {
    if (this.link.stopped) return []
    const key = keyOf(ws, room)
    let local = this.rooms.get(key)
    const known = local !== undefined
    for (const peer of this.peers.all.values()) {
      const unit = peer.units.get(key)
      if (!unit) continue
      for (const info of unit.members) {
        if (info.id === joiningId) continue
        local ??= this.openLocal(key, ws, room)
        this.addProxy(local, peer, unit, info, false)
      }
    }
    if (local === undefined) return []
    if (!known) void this.leases.acquire(key)
    // A copy kept from before (its room closed before the refresh that would have dropped it): its members join the new room too.
    return [...local.proxies.values()].filter(({ member }) => member.id !== joiningId).map(({ member }) => member)
  }

  /** Make the room's relayed members and remote sinks follow what the other nodes announced. */
  private reconcile(local: LocalRoom, localIds: ReadonlySet<string>): void {
    const { hub } = this.link.o
    const key = keyOf(local.ws, local.room)
    const wanted = new Set<string>()
    const remotes: RemoteSink[] = []
    for (const peer of this.peers.all.values()) {
      const unit = peer.units.get(key)
      if (!unit || unit.members.length === 0) continue
      const tag = local.tag
      const outbox = peer.outbox
      remotes.push({ send: (sourceId, uplink) => outbox.append(tag, sourceId, uplink) })
      for (const info of unit.members) {
        // A client here and there at once is being replaced: its session here stays until closed.
        if (localIds.has(info.id)) continue
        wanted.add(this.addProxy(local, peer, unit, info, true))
      }
    }
    for (const [id, { member, peer, relayKey }] of local.proxies) {
      if (wanted.has(id)) continue
      local.proxies.delete(id)
      if (peer.sources.get(relayKey) === member) peer.sources.delete(relayKey)
      hub.leaveRoom(local.ws, local.room, member)
    }
    hub.setRoomRemotes(local.ws, local.room, remotes)
  }

  /** `hark.dir.*`: another node's unit. */
  unitIn(unit: Unit): void {
    if (unit.node === this.link.nodeId) return
    const peer = this.peers.heard({ node: unit.node, incarnation: unit.incarnation })
    if (!peer) return
    const key = keyOf(unit.ws, unit.room)
    if (unit.members.length === 0) peer.units.delete(key)
    else peer.units.set(key, unit)
    this.sessionIndex = null
    if (this.rooms.has(key)) this.markDirty(key)
  }

  /** A peer was forgotten: its members leave this node's copies. */
  forgotten(peer: Peer): void {
    this.sessionIndex = null
    for (const key of peer.units.keys()) if (this.rooms.has(key)) this.markDirty(key)
  }

  // ---- RemoteDirectory: what the other nodes announced, for listings and presence ----

  roomNames(ws: string): string[] {
    const names = new Set<string>()
    for (const peer of this.peers.all.values()) for (const unit of peer.units.values()) if (unit.ws === ws) names.add(unit.room)
    return [...names]
  }

  participants(ws: string, room: string): Array<ParticipantInfo & { readonly transport: string | null }> {
    const key = keyOf(ws, room)
    const out: Array<ParticipantInfo & { readonly transport: string | null }> = []
    for (const peer of this.peers.all.values()) {
      for (const m of peer.units.get(key)?.members ?? []) {
        out.push({ id: m.id, kind: m.kind, sourceId: m.sourceId, name: m.name, transport: m.transport ?? null })
      }
    }
    return out
  }

  private index(): Map<string, Map<string, PresenceEntry>> {
    if (this.sessionIndex) return this.sessionIndex
    const index = new Map<string, Map<string, PresenceEntry>>()
    for (const peer of this.peers.all.values()) {
      for (const unit of peer.units.values()) {
        for (const m of unit.members) {
          if (m.kind !== 'terminal' || !m.sessionId) continue
          let ws = index.get(unit.ws)
          if (!ws) index.set(unit.ws, (ws = new Map()))
          ws.set(m.id, { sessionId: m.sessionId, workspaceId: unit.ws, clientId: m.id, transport: m.transport ?? 'unknown', connectedAt: m.connectedAt ?? 0, room: unit.room })
        }
      }
    }
    return (this.sessionIndex = index)
  }

  session(ws: string, clientId: string): PresenceEntry | undefined {
    return this.index().get(ws)?.get(clientId)
  }

  sessions(ws: string): PresenceEntry[] {
    return [...(this.index().get(ws)?.values() ?? [])]
  }
}
