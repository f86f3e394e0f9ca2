/**
 * A member of another node, relayed into this node's copy of a room by a cluster node (on NATS:
 * cluster/nats/directory.ts): the receiving end of the relay. It holds a source port in the local
 * room like any member, so the room's terminals get its frames with a local source id and
 * sequence, its talk spurts become speaking events, and mixed receivers hear it. It never listens
 * (`listens: false`): its own node delivers to it.
 */
import type { RoomMember } from '../actors/room.js'
import type { SourcePort } from '../dataplane/roomRouter.js'

export interface RelayedInfo {
  readonly id: string
  readonly kind: 'terminal' | 'agent'
  readonly name: string | null
  /** Its source id on its own node: what that node's frames carry. */
  readonly sourceId: number
  /** Terminals only: what presence and room views show. */
  readonly sessionId?: string
  readonly transport?: string
  readonly connectedAt?: number
}

export class RelayedMember implements RoomMember {
  readonly listens = false
  private port: SourcePort | null = null

  constructor(
    readonly node: string,
    readonly info: RelayedInfo,
  ) {}

  get id() {
    return this.info.id
  }
  get kind() {
    return this.info.kind
  }
  get name() {
    return this.info.name
  }
  get transport() {
    return this.info.transport ?? null
  }

  deliver(): void {}
  sendEvent(): void {}
  joined(_room: string, port: SourcePort): void {
    this.port = port
  }

  /** Hot path: one frame of this member from its node, into the local room. */
  push(uplink: Uint8Array, now: number): void {
    const port = this.port
    if (port !== null) port.router.forwardRelayed(port, uplink, now)
  }
}
