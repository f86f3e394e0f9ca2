/**
 * The relay's counters on /metrics (spec/cluster.md, Relay counters): read off plain numbers when
 * scraped, so the per-frame path only increments them.
 */
import { Counter, type Registry } from 'prom-client'
import type { RelayTotals } from './relay.js'

/** `hark_cluster_relay_frames_total{direction}`, `_messages_total{direction}` and `_frames_dropped_total{reason}`. */
export const installRelayMetrics = (registry: Registry, totals: () => RelayTotals): void => {
  const byDirection = (name: string, help: string, pick: (t: RelayTotals) => readonly [out: number, inbound: number]) =>
    new Counter({
      name,
      help,
      labelNames: ['direction'],
      registers: [registry],
      collect() {
        const [out, inbound] = pick(totals())
        this.reset()
        this.inc({ direction: 'out' }, out)
        this.inc({ direction: 'in' }, inbound)
      },
    })
  byDirection('hark_cluster_relay_frames_total', 'Audio frames relayed to other nodes (out) and received from them (in)', (t) => [t.framesOut, t.framesIn])
  byDirection('hark_cluster_relay_messages_total', 'Messages of relayed audio sent to other nodes (out) and received (in), on NATS and on the direct links', (t) => [t.messagesOut, t.messagesIn])
  byDirection('hark_cluster_relay_link_messages_total', 'Of those, the messages the direct relay links carried (the rest went over NATS)', (t) => [t.linkMessagesOut, t.linkMessagesIn])
  new Counter({
    name: 'hark_cluster_relay_frames_dropped_total',
    help: 'Relayed audio frames dropped: from an unknown node, for an unknown source, malformed, or not published',
    labelNames: ['reason'],
    registers: [registry],
    collect() {
      const t = totals()
      this.reset()
      for (const [reason, n] of Object.entries(t.dropped)) this.inc({ reason }, n)
    },
  })
}
