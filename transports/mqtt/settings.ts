/** The MQTT transport's settings (spec/mqtt.md). */
import { defineSettings, intBetween, Port, setting } from '../../core/extension.js'
import * as Schema from 'effect/Schema'

export const mqttSettings = defineSettings('mqtt', {
  port: setting(Port, 2883, 'plain-TCP MQTT listener'),
  tlsPort: setting(Schema.NullOr(Port), null, 'MQTT over TLS listener with the gateway certificate; null: off'),
  maxPacketBytes: setting(
    intBetween(2048, 268_435_455),
    16_384,
    'largest MQTT packet accepted (announced to MQTT 5 clients); a bigger one closes the connection',
  ),
  maxKeepAliveSeconds: setting(intBetween(1, 65_535), 1200, 'MQTT 5 Server Keep Alive for clients asking for 0 or longer'),
  maxSessionExpirySeconds: setting(
    intBetween(0, 4_294_967_295),
    3600,
    'how long the subscriptions and unacknowledged events of a non-clean session outlive its connection',
  ),
  connectTimeoutSeconds: setting(intBetween(1, 300), 10, 'a connection that sends no CONNECT within this time is closed'),
  maxInflight: setting(intBetween(1, 65_535), 16, 'unacknowledged QoS 1 events per connection (the MQTT 5 Receive Maximum announced)'),
  maxQueuedEvents: setting(
    intBetween(1, 1_000_000),
    1000,
    'events waiting behind a full inflight window; one more closes the connection (quota exceeded)',
  ),
  maxBufferedAudioBytes: setting(
    intBetween(1024, 67_108_864),
    65_536,
    'downlink audio is dropped (and counted) while more than this many bytes wait for the socket',
  ),
  maxBufferedBytes: setting(
    intBetween(65_536, 1_073_741_824),
    1_048_576,
    'a connection with more than this many bytes waiting to be written (a client that stopped reading) is closed: receiver_too_slow; above maxBufferedAudioBytes',
  ),
  audioBatchMs: setting(
    intBetween(0, 50),
    0,
    'latency budget of downlink audio: a frame to a device that had audio written less than this long ago waits up to this long to leave in one write with the frames after it (0: end of the event-loop turn)',
  ),
})

export type MqttSettings = typeof mqttSettings.Type
