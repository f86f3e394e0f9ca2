/**
 * The WebSocket transport (uWebSockets.js over TLS), registered by name in engine.config.ts:
 * terminals connect to `wss://host:gateway.port/v1/connect?token=…`. See spec/websocket.md.
 */
import { defineTransport } from '../../core/extension.js'
import type { ConnectionLimits } from './connection.js'
import { WebSocketGateway } from './gateway.js'
import { gatewaySettings } from './settings.js'

export { WebSocketGateway } from './gateway.js'
export { DEFAULT_LIMITS, type ConnectionLimits } from './connection.js'
export { gatewaySettings, type GatewaySettings } from './settings.js'

export { websocketTransport } from './extension.js'

/** The transport with other per-connection limits (tests, benchmarks, embedders). */
export const defineWebSocketTransport = (limits: Partial<ConnectionLimits> = {}) =>
  defineTransport('websocket', {
    settings: gatewaySettings,
    create: (resolve) => resolve(WebSocketGateway).withLimits(limits),
  })
