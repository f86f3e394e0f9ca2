/**
 * idle-memory: server memory per connected idle terminal over WSS. Connect N terminals (rooms
 * of 4, nobody talking) in two halves, hold them for the window, and divide the growth of the
 * server's RSS by N (each half's figure in `extra`: runIdleMemory says why). Hark keeps per terminal a session (no client actor: the bench's tokens are long-lived),
 * presence, a room membership and its socket; the bare uWS peer keeps a socket subscribed to a topic.
 */
import { defineScenario } from '../scenario.js'
import { runIdleMemory } from '../generators/connections.js'
import { harkTerminals, setupWsTerminals, uwsTerminals, type WsTerminalsFixture } from './wsTerminals.js'

const LOAD = { quick: 1000, full: 5000 }

export default defineScenario<WsTerminalsFixture>({
  name: 'idle-memory',
  description: 'KB of server RSS per idle connected WSS terminal (rooms of 4, nobody talking)',
  unit: 'KB/client',
  higherIsBetter: false,
  load: { ...LOAD, unit: 'terminals' },
  timing: { quick: { warmupMs: 500, durationMs: 1500 }, full: { warmupMs: 2000, durationMs: 5000 } },
  setup: (ctx) => setupWsTerminals(ctx, LOAD),
  hark: {
    name: 'hark',
    label: 'Hark WebSocket gateway (session, presence, room membership; long-lived tokens: no client actor)',
    measure: async (ctx, f) => runIdleMemory(ctx, await harkTerminals(ctx, f)),
  },
  peers: [
    {
      name: 'uws',
      label: 'bare uWebSockets.js 20.30 SSLApp (a socket subscribed to a topic)',
      measure: async (ctx, f) => runIdleMemory(ctx, await uwsTerminals(ctx, f)),
    },
  ],
})
