/**
 * connect-storm: terminals connected per second over WSS, 64 connections opening at a time per
 * generator process. Hark's side verifies each terminal's token (HS256, revocation, client
 * lookup) before the upgrade, then opens a session and places it in its room (actors, presence,
 * `session` event); the bare uWS peer upgrades anyone and subscribes it to a topic. Both pay the
 * same TLS handshakes (EC P-256 certificate).
 */
import { defineScenario } from '../scenario.js'
import { runConnectStorm } from '../generators/connections.js'
import { harkTerminals, setupWsTerminals, uwsTerminals, type WsTerminalsFixture } from './wsTerminals.js'

const LOAD = { quick: 1000, full: 3000 }

export default defineScenario<WsTerminalsFixture>({
  name: 'connect-storm',
  description: 'WSS terminals connected per second (TLS handshake, token check, upgrade, session in its room), 64 at a time',
  unit: 'connects/s',
  higherIsBetter: true,
  load: { ...LOAD, unit: 'terminals' },
  setup: (ctx) => setupWsTerminals(ctx, LOAD),
  hark: {
    name: 'hark',
    label: 'Hark WebSocket gateway (token verified before the upgrade)',
    measure: async (ctx, f) => runConnectStorm(ctx, await harkTerminals(ctx, f)),
  },
  peers: [
    {
      name: 'uws',
      label: 'bare uWebSockets.js 20.30 SSLApp (no auth, subscribe to a topic)',
      measure: async (ctx, f) => runConnectStorm(ctx, await uwsTerminals(ctx, f)),
    },
  ],
})
