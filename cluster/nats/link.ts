/**
 * What every part of a NATS cluster node shares: who it is (id, incarnation), the engine's
 * services it was given, its NATS connection once joined, and publishing a control message.
 */
import { randomUUID } from 'node:crypto'
import type { NatsConnection } from '@nats-io/transport-node'
import type { ClusterOptions } from '../../core/cluster/cluster.js'
import { encode, S } from './protocol.js'

export class Link {
  readonly nodeId: string
  /** Changes at every start: a node back under the same id is told apart from its past self. */
  readonly incarnation = randomUUID()
  /** Set once connected (NatsClusterNode.start). */
  nc!: NatsConnection
  /** `host:port` of this node's relay link listener, advertised in its heartbeats (null: none). */
  relayAddress: string | null = null
  /** `<scope>/<name>` of its Unix socket listener for nodes on this machine, advertised beside it (null: none). */
  relayLocal: string | null = null
  stopped = false

  constructor(readonly o: ClusterOptions) {
    this.nodeId = o.nodeId
  }

  /** Once per lease tick: heartbeats, lease renewals and tries (a third of the TTL). */
  get tickMs(): number {
    return Math.floor(this.o.leaseTtlMs / 3)
  }

  /** A JSON control message; nothing after stop but the goodbye. A failure is logged, never thrown. */
  publish(subject: string, value: unknown): void {
    if (this.stopped && subject !== S.bye) return
    try {
      this.nc.publish(subject, encode(value))
    } catch (e) {
      this.o.log.warn({ err: e, subject }, 'cluster: publish failed')
    }
  }
}
