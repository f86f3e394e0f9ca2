/**
 * The default engine configuration: the built-in extensions, registered by name exactly as an
 * embedder registers their own, and the settings most often changed. Every other setting keeps
 * the default its declaration gives it (core/config.ts for the engine's own, each extension's
 * settings.ts for its section); `hark settings` lists them all. `hark start` loads this file
 * (compiled) unless --config names another; HARK_* variables and flags override it.
 *
 * The transports come from their descriptors (`extension.js`): their implementations (werift,
 * uWebSockets.js, …) are imported when the engine starts them, not when a command reads this file;
 * the cluster's (NATS) only when `cluster.natsUrl` is set.
 */
import { defineConfig } from './core/extension.js'
import { echoAgent } from './agents/echo/index.js'
import { natsCluster } from './cluster/nats/extension.js'
import { localAgent } from './agents/local/index.js'
import { openaiRealtimeAgent } from './agents/openai-realtime/index.js'
import { pipelineAgent } from './agents/pipeline/index.js'
import { consolePlugin } from './plugins/console/index.js'
import { restPlugin } from './plugins/rest/index.js'
import { webhooksPlugin } from './plugins/webhooks/index.js'
import { webrtcTransport } from './transports/webrtc/extension.js'
import { mqttTransport } from './transports/mqtt/extension.js'
import { websocketTransport } from './transports/websocket/extension.js'
import { xiaozhi } from './transports/xiaozhi/extension.js'

export default defineConfig({
  extensions: [restPlugin, consolePlugin, webhooksPlugin, websocketTransport, mqttTransport, webrtcTransport, ...xiaozhi, echoAgent, openaiRealtimeAgent, pipelineAgent, localAgent, natsCluster],
  host: '127.0.0.1',
  dataDir: './data',
  log: { level: 'info', format: 'auto' },
  rest: { port: 8080, rateLimitMax: 1200 },
  gateway: { port: 8443 },
  mqtt: { port: 2883, tlsPort: null },
  console: { enabled: true, port: 8090 },
  agents: { defaultProvider: 'echo', openaiRealtime: { apiKeyEnv: 'OPENAI_API_KEY' } },
})
