/** The WebSocket transport's settings: the TLS gateway listener it owns (WebRTC signalling shares it). */
import { defineSettings, Port, setting } from '../../core/index.js'

export const gatewaySettings = defineSettings('gateway', {
  port: setting(Port, 8443, 'TLS listener: WSS (/v1/connect) and WebRTC signalling (/v1/webrtc/offer)'),
})

export type GatewaySettings = typeof gatewaySettings.Type
