/**
 * An engine for WebRTC tests, composed like engine.config.ts (the WebSocket gateway owns the
 * gateway port and serves the signalling routes; the WebRTC transport may be given other
 * limits), with a seeded workspace and helpers for tokens, room moves and the transport itself.
 */
import defaultConfig from '../../../engine.config.js'
import type { EngineConfig, EngineOptions, Extension } from '../../../core/index.js'
import { seedWorkspace, startTestEngine } from '../../../core/test/helpers.js'
import { webrtcTransport } from '../index.js'
import type { WebRtcTransport } from '../transport.js'

export const startWebRtcEngine = async (config: EngineConfig = {}, webrtc: Extension = webrtcTransport, options: EngineOptions = {}) => {
  const extensions = [...(defaultConfig.extensions ?? []).filter((e) => e.name !== 'webrtc'), webrtc]
  const t = await startTestEngine({ ...config, extensions }, options)
  const engine = t.engine
  const seed = seedWorkspace(engine)
  const { security, storage } = engine.host
  return {
    ...t,
    seed,
    port: engine.ports.gateway!,
    ca: engine.host.tls.cert,
    issue: (clientId: string, ttl: number | null = null) => security.tokens.issue(seed.workspaceId, clientId, ttl),
    token: async (clientId: string) => (await security.tokens.issue(seed.workspaceId, clientId, null)).token,
    transport: () => engine.host.resolve<WebRtcTransport>('transport', 'webrtc'),
    moveClient: (clientId: string, room: string | null) => seed.moveClient(clientId, room),
  }
}

export type WebRtcEngine = Awaited<ReturnType<typeof startWebRtcEngine>>
