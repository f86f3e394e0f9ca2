/**
 * Downlink and uplink audio frames a transport chose not to deliver, per transport and reason,
 * published as `hark_audio_frames_dropped_total{transport,reason}`. Transports bump a plain
 * number on the hot path (`cell.count++`); prom-client reads the cells only when scraped. One
 * counter per metrics registry, shared by every transport of that engine.
 *
 * Reasons: `backpressure` (the receiver's socket is backed up), `rate` (a sender exceeded the
 * frame-rate limit), `closed` (a frame raced the connection's close), `early` (an uplink frame of a
 * session whose `session` event had not gone out yet: core/session.ts IntroductionGate), `overload`
 * (an uplink frame shed because the engine is behind: core/dataplane/overload.ts), `stale` (an
 * uplink frame read when the loaded engine was more than overload.staleMs behind: it waited as long).
 */
import { createRequire } from 'node:module'
import type { Registry } from 'prom-client'

/**
 * prom-client, loaded by the first engine that counts drops: this module is part of the light
 * `hark/extension` entry, which a config or a descriptor imports without any engine.
 */
const promClient = (): typeof import('prom-client') => createRequire(import.meta.url)('prom-client') as typeof import('prom-client')

export type DropReason = 'backpressure' | 'rate' | 'closed' | 'early' | 'overload' | 'stale'

export interface DropCell {
  count: number
}

export class AudioDrops {
  private readonly cells = new Map<string, { transport: string; reason: DropReason; cell: DropCell }>()

  /** The cell to increment for frames of `transport` dropped for `reason`. */
  cell(transport: string, reason: DropReason): DropCell {
    const key = `${transport}\u0000${reason}`
    let entry = this.cells.get(key)
    if (!entry) this.cells.set(key, (entry = { transport, reason, cell: { count: 0 } }))
    return entry.cell
  }

  /** Total drops of a transport (all reasons), for tests and logs. */
  total(transport: string): number {
    let n = 0
    for (const e of this.cells.values()) if (e.transport === transport) n += e.cell.count
    return n
  }

  entries(): Iterable<{ transport: string; reason: DropReason; cell: DropCell }> {
    return this.cells.values()
  }
}

const byRegistry = new WeakMap<Registry, AudioDrops>()

/** The drop cells of an engine (created with its counter on first use). */
export const audioDrops = (registry: Registry): AudioDrops => {
  let drops = byRegistry.get(registry)
  if (drops) return drops
  const created = new AudioDrops()
  byRegistry.set(registry, created)
  new (promClient().Counter)({
    name: 'hark_audio_frames_dropped_total',
    help: 'Audio frames not delivered, by transport and reason (backpressure, rate, closed, early, overload, stale)',
    labelNames: ['transport', 'reason'],
    registers: [registry],
    collect() {
      this.reset()
      for (const e of created.entries()) this.inc({ transport: e.transport, reason: e.reason }, e.cell.count)
    },
  })
  drops = created
  return drops
}
