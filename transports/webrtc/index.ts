/**
 * The WebRTC transport (werift), registered by name in engine.config.ts: terminals post an SDP
 * offer to `https://host:gateway.port/v1/webrtc/offer` with a client token and get one peer
 * connection carrying Opus both ways and events on a data channel. See spec/webrtc.md.
 */
import { defineTransport } from '../../core/extension.js'
import type { PeerLimits } from './peer.js'
import { webrtcSettings } from './settings.js'
import { WebRtcTransport } from './transport.js'

export { WebRtcTransport, DEFAULT_PEER_LIMITS } from './transport.js'
export type { PeerLimits } from './peer.js'
export { webrtcSettings, type WebRtcSettings } from './settings.js'

export { webrtcTransport } from './extension.js'

/** The transport with other per-peer limits (tests, benchmarks, embedders). */
export const defineWebRtcTransport = (limits: Partial<PeerLimits> = {}) =>
  defineTransport('webrtc', { settings: webrtcSettings, create: (resolve) => resolve(WebRtcTransport).withLimits(limits) })
