/**
 * mqtt-packet's `generate`, without its number cache. Left on, mqtt-packet's first `generate`
 * builds a 2-byte Buffer for each of the 65,536 16-bit numbers (~6 MB of heap, for the life of the
 * process: 0.6 KB of the idle-mqtt figure at 10k devices) to save one 2-byte allocation per
 * packet identifier or length it writes. Only control packets are generated (CONNACK, SUBACK,
 * events, DISCONNECT): audio goes out through templates (publishTemplate.ts). Import `generate`
 * from here, never from mqtt-packet, so the cache is off before the first packet.
 */
import { generate, writeToStream } from 'mqtt-packet'

writeToStream.cacheNumbers = false

export { generate }
