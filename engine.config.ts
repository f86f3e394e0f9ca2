/**
 * The default engine configuration: every setting at its documented default, and the built-in
 * extensions registered by name exactly as an embedder registers their own. `hark start` loads
 * this file (compiled) unless --config names another; HARK_* variables and flags override it.
 */
import { defineConfig } from './core/index.js'
import { echoAgent } from './agents/echo/index.js'
import { openaiRealtimeAgent } from './agents/openai-realtime/index.js'
import { pipelineAgent } from './agents/pipeline/index.js'
import { consolePlugin } from './plugins/console/index.js'
import { restPlugin } from './plugins/rest/index.js'
import { webrtcTransport } from './transports/webrtc/index.js'
import { mqttTransport } from './transports/mqtt/index.js'
import { websocketTransport } from './transports/websocket/index.js'

export default defineConfig({
  host: '127.0.0.1',
  dataDir: './data',
  log: { level: 'info', format: 'auto' },
  rest: {
    port: 8080,
    bodyLimitBytes: 65_536,
    rateLimitMax: 1200,
    rateLimitWindowSeconds: 60,
    headersTimeoutMs: 10_000,
    requestTimeoutMs: 30_000,
    keepAliveTimeoutMs: 5000,
    connectionTimeoutMs: 130_000,
  },
  gateway: { port: 8443 },
  webrtc: {
    hostAddresses: null,
    announcedAddress: null,
    portMin: 0,
    portMax: 0,
    iceServerUrls: null,
    turnUsername: null,
    turnCredential: null,
    turnSecret: null,
    maxPeers: 1000,
    connectTimeoutMs: 10_000,
  },
  mqtt: {
    port: 2883,
    tlsPort: null,
    maxPacketBytes: 16_384,
    maxKeepAliveSeconds: 1200,
    maxSessionExpirySeconds: 3600,
    connectTimeoutSeconds: 10,
    maxInflight: 16,
    maxQueuedEvents: 1000,
    maxBufferedAudioBytes: 65_536,
  },
  console: { enabled: true, port: 8090, sessionIdleSeconds: 43_200, sessionMaxSeconds: 604_800 },
  tls: { certFile: null, keyFile: null },
  security: {
    masterKey: null,
    masterKeyFile: null,
    secretGraceSeconds: 86_400,
    maxTokenTtlSeconds: 31_536_000,
  },
  storage: { changePollMs: 200 },
  usage: { checkpointMs: 5000 },
  agents: {
    defaultProvider: 'echo',
    startTimeoutMs: 15_000,
    stopTimeoutMs: 5000,
    playoutLeadMs: 40,
    maxPerRoom: 4,
    defaultAgentStopDelaySeconds: 30,
    openaiRealtime: { baseUrl: 'wss://api.openai.com/v1', apiKey: null, apiKeyEnv: 'OPENAI_API_KEY' },
    pipeline: {
      stt: { baseUrl: 'https://api.openai.com/v1', apiKey: null, apiKeyEnv: 'OPENAI_API_KEY' },
      llm: { baseUrl: 'https://api.openai.com/v1', apiKey: null, apiKeyEnv: 'OPENAI_API_KEY' },
      tts: { baseUrl: 'https://api.openai.com/v1', apiKey: null, apiKeyEnv: 'OPENAI_API_KEY' },
      requestTimeoutMs: 15_000,
    },
  },
  extensions: [restPlugin, consolePlugin, websocketTransport, mqttTransport, webrtcTransport, echoAgent, openaiRealtimeAgent, pipelineAgent],
})
