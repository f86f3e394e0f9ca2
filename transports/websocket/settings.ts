/** The WebSocket transport's settings: the TLS gateway listener it owns (WebRTC signalling shares it). */
import * as Schema from 'effect/Schema'
import { defineSettings, Port, setting } from '../../core/extension.js'

export const gatewaySettings = defineSettings('gateway', {
  port: setting(Port, 8443, 'TLS listener: WSS (/v1/connect) and WebRTC signalling (/v1/webrtc/offer)'),
  pubsub: setting(
    Schema.Boolean,
    true,
    "send a room's audio to its WebSocket terminals with one uWS pub/sub publish per frame (spec/websocket.md); false: one send per receiver",
  ),
})

export type GatewaySettings = typeof gatewaySettings.Type
