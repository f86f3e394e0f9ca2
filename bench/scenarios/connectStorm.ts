/**
 * connect-storm: terminals connected per second over WSS, 64 connections opening at a time per
 * generator process. Hark's side verifies each terminal's token (HS256, revocation, client
 * lookup) before the upgrade, then opens a session and places it in its room (actors, presence,
 * `session` event); the bare uWS peer upgrades anyone and subscribes it to a topic. Both pay the
 * same TLS handshakes (EC P-256 certificate; the generator resumes no session). Latency is the
 * time from opening a connection to its terminal being in its room.
 *
 * --sweep offers a rate instead (open loop): each step starts `level` connects per second for
 * STORM_SECONDS, whoever answers, and holds while p99 connect time ≤ 250 ms and ≥ 99% connect;
 * the knee is the highest rate a side keeps up with (the goal: 10k terminals in ≤ 5 s = 2000/s).
 */
import type { ConnectionLoadSpec } from '../generators/connections.js'
import { runConnectStorm } from '../generators/connections.js'
import { defineScenario, type MeasureContext, type Measurement } from '../scenario.js'
import { harkTerminals, setupWsTerminals, uwsTerminals, type WsTerminalsFixture } from './wsTerminals.js'

const LOAD = { quick: 1000, full: 3000 }
/** Seconds each sweep step offers its rate for: terminals = rate × seconds. */
const STORM_SECONDS = { quick: 1, full: 3 }
const SWEEP_MAX_RATE = 5000

/** A sweep step: `ctx.load` connects/s offered for a few seconds, no lane limit. */
const storm = async (
  ctx: MeasureContext,
  f: WsTerminalsFixture,
  terminals: (ctx: MeasureContext, f: WsTerminalsFixture, count: number) => Promise<ConnectionLoadSpec>,
): Promise<Measurement> => {
  if (!ctx.sweepStep) return runConnectStorm(ctx, await terminals(ctx, f, ctx.load))
  const count = Math.ceil(ctx.load * STORM_SECONDS[ctx.quick ? 'quick' : 'full'])
  const spec = await terminals(ctx, f, count)
  return runConnectStorm(ctx, { ...spec, connectRate: ctx.load, concurrency: count })
}

export default defineScenario<WsTerminalsFixture>({
  name: 'connect-storm',
  description: 'WSS terminals connected per second (TLS handshake, token check, upgrade, session in its room), 64 at a time',
  unit: 'connects/s',
  higherIsBetter: true,
  load: { ...LOAD, unit: 'terminals' },
  sweep: { start: 500, factor: 1.5, maxLevel: SWEEP_MAX_RATE, maxSteps: 8, p99LimitMs: 250, minDeliveryRatio: 0.99, unit: 'connects/s offered' },
  setup: (ctx) => setupWsTerminals(ctx, LOAD, SWEEP_MAX_RATE * STORM_SECONDS[ctx.quick ? 'quick' : 'full']),
  hark: {
    name: 'hark',
    label: 'Hark WebSocket gateway (token verified before the upgrade)',
    measure: (ctx, f) => storm(ctx, f, harkTerminals),
  },
  peers: [
    {
      name: 'uws',
      label: 'bare uWebSockets.js 20.30 SSLApp (no auth, subscribe to a topic)',
      measure: (ctx, f) => storm(ctx, f, uwsTerminals),
    },
  ],
})
