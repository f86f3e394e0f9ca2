/**
 * The relay's stop when NATS is already gone: the frames still queued for a peer whose link is down
 * cannot be published; they are counted as dropped and the stop goes on (no throw, nothing left
 * armed), so the node's own stop completes.
 */
import { describe, expect, it } from 'vitest'
import { pino } from 'pino'
import type { Link } from './link.js'
import type { Peer } from './peers.js'
import { Relay } from './relay.js'

describe('Relay.stop', () => {
  it('counts the frames it cannot publish any more and finishes the stop', () => {
    const warned: string[] = []
    const log = pino({ level: 'warn' }, { write: (line: string) => void warned.push((JSON.parse(line) as { msg: string }).msg) })
    const link = {
      nodeId: 'a',
      o: { log, relayBatchMs: 0, relaySpacingMs: 1 },
      nc: {
        publish: () => {
          throw new Error('connection closed')
        },
      },
    } as unknown as Link
    const peers = new Map<string, Peer>()
    const relay = new Relay(link, peers)
    const outbox = relay.outboxFor('b')
    peers.set('b', { node: 'b', incarnation: 'x', lastSeen: 0, endpoints: {}, units: new Map(), sources: new Map(), outbox, relay: null, relayLocal: null, resync: false })
    outbox.append(1, 1, Uint8Array.of(0x80, 1, 2))
    outbox.append(1, 2, Uint8Array.of(0x80, 3))
    expect(() => relay.stop()).not.toThrow()
    expect(relay.totals().dropped.publish_failed).toBe(2)
    expect(warned).toEqual(['cluster: relay messages cannot be published; their frames are dropped'])
  })
})
