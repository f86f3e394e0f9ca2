/**
 * The WebRTC transport's descriptor: its name and settings. Its implementation (werift) is
 * imported only when an engine starts it, so a config that lists it, and every `hark` command
 * but `start`, loads without werift (spec/extensions.md, Loading on start).
 */
import { defineTransport } from '../../core/extension.js'
import { webrtcSettings } from './settings.js'

export const webrtcTransport = defineTransport('webrtc', {
  settings: webrtcSettings,
  load: async () => (await import('./transport.js')).WebRtcTransport,
})
