/**
 * The WebSocket transport's descriptor: its name and settings. Its implementation (uWebSockets.js)
 * is imported only when an engine starts it (spec/extensions.md, Loading on start).
 */
import { defineTransport } from '../../core/extension.js'
import { gatewaySettings } from './settings.js'

export const websocketTransport = defineTransport('websocket', {
  settings: gatewaySettings,
  load: async () => (await import('./gateway.js')).WebSocketGateway,
})
