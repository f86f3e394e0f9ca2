/** The WebRTC transport's settings (spec/webrtc.md): where peers live on the network, ICE servers, limits. */
import * as Schema from 'effect/Schema'
import { defineSettings, intBetween, Port, setting } from '../../core/extension.js'

const OptionalText = Schema.NullOr(Schema.NonEmptyString)

export const webrtcSettings = defineSettings('webrtc', {
  hostAddresses: setting(
    OptionalText,
    null,
    'ICE host candidates, comma-separated IPs; null → `host` when it is one address, else every non-internal IPv4 address',
  ),
  announcedAddress: setting(OptionalText, null, 'public IP of a 1:1 NAT, announced instead of the host addresses'),
  portMin: setting(Port, 0, 'lowest UDP port for peers (one port per peer); 0 and 0: any free port'),
  portMax: setting(Port, 0, 'highest UDP port for peers'),
  iceServerUrls: setting(OptionalText, null, 'comma-separated stun:/turn:/turns: URLs handed to clients; null: none'),
  turnUsername: setting(OptionalText, null, 'static TURN user name (ignored when turnSecret is set)'),
  turnCredential: setting(OptionalText, null, 'static TURN credential'),
  turnSecret: setting(OptionalText, null, 'TURN shared secret: time-limited credentials per client (coturn use-auth-secret)'),
  maxPeers: setting(Schema.Int.check(Schema.isGreaterThanOrEqualTo(1)), 1000, 'peers (connecting or connected) beyond which offers get 503'),
  connectTimeoutMs: setting(intBetween(100, 120_000), 10_000, 'an answered peer must open its data channel within this time'),
})

export type WebRtcSettings = typeof webrtcSettings.Type
