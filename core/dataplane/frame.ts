/**
 * Terminal protocol v1, data plane: the binary audio frame layouts shared by every transport.
 *
 * Uplink (terminal → server), one frame per message:
 *   byte 0      V|level: bit 7 = voice activity, bits 0-6 = level in -dBov (0 loudest, 127 silent),
 *               the RFC 6464 audio-level semantics
 *   bytes 1..   one Opus packet (16 kHz mono, 20 or 60 ms), 1..MAX_OPUS_BYTES bytes
 *
 * Downlink (server → terminal):
 *   byte 0      kind: 0x01 = Opus audio
 *   byte 1      V|level of the source frame (0x7f for a server mix)
 *   bytes 2-3   source id, uint16 big-endian (0 = mixed by the server)
 *   bytes 4-5   sequence number of that source, uint16 big-endian, wrapping
 *   bytes 6..   the Opus packet, byte-identical to what the source sent
 */

export const DOWNLINK_KIND_OPUS = 0x01
export const DOWNLINK_HEADER_BYTES = 6
export const UPLINK_HEADER_BYTES = 1
/** Voice at 16 kHz needs ~40-200 bytes per 20-60 ms packet; 1500 leaves room for high bitrates and stays one MTU. */
export const MAX_OPUS_BYTES = 1500
export const MAX_UPLINK_BYTES = UPLINK_HEADER_BYTES + MAX_OPUS_BYTES
export const MIXED_SOURCE_ID = 0
export const LEVEL_SILENT = 0x7f

export const voiceFlag = (levelByte: number) => (levelByte & 0x80) !== 0
/** Level in -dBov (0..127). */
export const levelOf = (levelByte: number) => levelByte & 0x7f

/** Build the V|level byte from 16-bit PCM (for terminals, agents and tests). */
export const levelByteFromPcm = (pcm: Int16Array, voiceThresholdDbov = 50): number => {
  let sum = 0
  for (let i = 0; i < pcm.length; i++) sum += pcm[i]! * pcm[i]!
  const rms = Math.sqrt(sum / Math.max(1, pcm.length)) / 32768
  const dbov = rms > 0 ? Math.min(127, Math.max(0, Math.round(-20 * Math.log10(rms)))) : 127
  return (dbov <= voiceThresholdDbov ? 0x80 : 0) | dbov
}

/**
 * Frames are cut from shared 16 KiB slabs: a `new Uint8Array(106)` costs ~500 ns here (an
 * off-heap backing store per frame), a view on a slab ~30 ns. A slab is never recycled — when
 * full, the next one is started and the old one lives as long as any frame cut from it — so a
 * frame's bytes never change after it is written. Consumers must honour byteOffset/byteLength
 * (never use `frame.buffer` as if it held one frame).
 */
const SLAB_BYTES = 16 * 1024
let slab = new ArrayBuffer(SLAB_BYTES)
let slabOffset = 0

const allocFrame = (bytes: number): Uint8Array => {
  if (bytes > SLAB_BYTES >>> 2) return new Uint8Array(bytes)
  if (slabOffset + bytes > SLAB_BYTES) {
    slab = new ArrayBuffer(SLAB_BYTES)
    slabOffset = 0
  }
  const frame = new Uint8Array(slab, slabOffset, bytes)
  slabOffset = (slabOffset + bytes + 7) & ~7
  return frame
}

/** Write a downlink frame for an uplink frame (one allocation, shared by every receiver). */
export const downlinkFromUplink = (uplink: Uint8Array, sourceId: number, seq: number): Uint8Array => {
  const frame = allocFrame(uplink.length - UPLINK_HEADER_BYTES + DOWNLINK_HEADER_BYTES)
  frame[0] = DOWNLINK_KIND_OPUS
  frame[1] = uplink[0]!
  frame[2] = sourceId >>> 8
  frame[3] = sourceId & 0xff
  frame[4] = (seq >>> 8) & 0xff
  frame[5] = seq & 0xff
  frame.set(uplink.subarray(UPLINK_HEADER_BYTES), DOWNLINK_HEADER_BYTES)
  return frame
}

/** Write a downlink frame around an Opus packet made by the server (agents, mixes). */
export const downlinkFromOpus = (opus: Uint8Array, levelByte: number, sourceId: number, seq: number): Uint8Array => {
  const frame = new Uint8Array(opus.length + DOWNLINK_HEADER_BYTES)
  frame[0] = DOWNLINK_KIND_OPUS
  frame[1] = levelByte
  frame[2] = sourceId >>> 8
  frame[3] = sourceId & 0xff
  frame[4] = (seq >>> 8) & 0xff
  frame[5] = seq & 0xff
  frame.set(opus, DOWNLINK_HEADER_BYTES)
  return frame
}

export interface DownlinkFrame {
  readonly kind: number
  readonly levelByte: number
  readonly sourceId: number
  readonly seq: number
  readonly opus: Uint8Array
}

/** Parse a downlink frame (clients, tests, the bench generator). */
export const parseDownlink = (frame: Uint8Array): DownlinkFrame | null =>
  frame.length <= DOWNLINK_HEADER_BYTES || frame[0] !== DOWNLINK_KIND_OPUS
    ? null
    : {
        kind: frame[0]!,
        levelByte: frame[1]!,
        sourceId: (frame[2]! << 8) | frame[3]!,
        seq: (frame[4]! << 8) | frame[5]!,
        opus: frame.subarray(DOWNLINK_HEADER_BYTES),
      }
