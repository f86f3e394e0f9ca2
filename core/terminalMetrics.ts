/**
 * Prometheus collectors of sessions and rooms. Counts follow what the workspace actors announce
 * (sessions opened and ended, rooms closed); gauges and frame totals are read off their snapshots
 * when scraped, never per audio frame.
 */
import * as HashMap from 'effect/HashMap'
import { Counter, Gauge, type Registry } from 'prom-client'
import type { RoomTotals, WorkspaceContexts, WorkspaceEvents } from './actors/workspace.js'

/** Register the collectors on `registry`; returns the function that unsubscribes them. */
export const installTerminalMetrics = (hub: WorkspaceContexts & WorkspaceEvents, registry: Registry): (() => void) => {
  // Sessions per transport as plain numbers, bumped on every open and end; prom-client reads them
  // only when scraped (its labelled inc/dec hashes the labels each time: ~10 µs a connect).
  const counts = new Map<string, { live: number; opened: number; closed: number }>()
  const countsOf = (transport: string) => {
    let c = counts.get(transport)
    if (c === undefined) counts.set(transport, (c = { live: 0, opened: 0, closed: 0 }))
    return c
  }
  const perTransport = (kind: 'gauge' | 'counter', name: string, help: string, key: 'live' | 'opened' | 'closed') => {
    const Metric = kind === 'gauge' ? Gauge : Counter
    return new Metric({
      name,
      help,
      labelNames: ['transport'],
      registers: [registry],
      collect() {
        this.reset()
        for (const [transport, c] of counts) this.inc({ transport }, c[key])
      },
    })
  }
  perTransport('gauge', 'hark_sessions', 'Live terminal sessions', 'live')
  perTransport('counter', 'hark_sessions_opened_total', 'Terminal sessions opened', 'opened')
  perTransport('counter', 'hark_sessions_closed_total', 'Terminal sessions ended', 'closed')
  const openRooms = function* () {
    for (const context of hub.contexts()) yield* HashMap.values(context.rooms)
  }
  // Totals of rooms that have closed, so the counters never go backwards.
  const retired: { -readonly [K in keyof RoomTotals]: number } = { framesIn: 0, framesOut: 0, framesPublished: 0, framesDecoded: 0, framesEncoded: 0 }
  const totals = (): RoomTotals => {
    const sum = { ...retired }
    for (const room of openRooms()) {
      const router = room.getSnapshot().context.router
      sum.framesIn += router.framesIn
      sum.framesOut += router.framesOut
      sum.framesPublished += router.framesPublished
      sum.framesDecoded += router.mixStats.framesDecoded
      sum.framesEncoded += router.mixStats.framesEncoded
    }
    return sum
  }
  new Gauge({
    name: 'hark_rooms',
    help: 'Occupied rooms',
    registers: [registry],
    collect() {
      let n = 0
      for (const context of hub.contexts()) n += HashMap.size(context.rooms)
      this.set(n)
    },
  })
  /** A counter whose labels each read one of the room totals when scraped. */
  const totalsCounter = (name: string, help: string, label: string, keys: Record<string, keyof RoomTotals>) =>
    new Counter({
      name,
      help,
      labelNames: [label],
      registers: [registry],
      collect() {
        const t = totals()
        this.reset()
        for (const [value, key] of Object.entries(keys)) this.inc({ [label]: value }, t[key])
      },
    })
  totalsCounter(
    'hark_audio_frames_routed_total',
    'Audio frames received from sources (in) and delivered to sinks (out) by room routers; published: frames sent to a room\'s WebSocket receivers with one native publish each',
    'direction',
    { in: 'framesIn', out: 'framesOut', published: 'framesPublished' },
  )
  totalsCounter('hark_audio_mixer_frames_total', 'Opus frames decoded and encoded by room mixers for receivers of the mixed stream', 'op', {
    decode: 'framesDecoded',
    encode: 'framesEncoded',
  })
  const off = [
    hub.on('session.opened', ({ session }) => {
      const c = countsOf(session.transport)
      c.live++
      c.opened++
    }),
    hub.on('session.ended', ({ session }) => {
      const c = countsOf(session.transport)
      c.live--
      c.closed++
    }),
    hub.on('room.closed', ({ totals: t }) => {
      for (const k of Object.keys(retired) as Array<keyof RoomTotals>) retired[k] += t[k]
    }),
  ]
  return () => off.forEach((f) => f())
}
