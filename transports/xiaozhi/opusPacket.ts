/**
 * Opus packets at the byte level (RFC 6716 section 3): how long a packet plays, the frames it
 * holds, and several frames of one configuration joined into one packet (a "code 3" packet) —
 * what libopus's repacketizer does, without decoding anything. The downlink to a xiaozhi device
 * needs it: firmware before v2.0.0 decodes every packet into a buffer of exactly the frame
 * duration announced in the server's hello and plays the whole buffer, so three 20 ms frames
 * must reach it as one 60 ms packet.
 */

/** Duration of one frame of each TOC configuration (0-31), in tenths of a millisecond. */
const FRAME_TENTHS: ReadonlyArray<number> = [
  // SILK NB, MB, WB: 10, 20, 40, 60 ms
  100, 200, 400, 600, 100, 200, 400, 600, 100, 200, 400, 600,
  // Hybrid SWB, FB: 10, 20 ms
  100, 200, 100, 200,
  // CELT NB, WB, SWB, FB: 2.5, 5, 10, 20 ms
  25, 50, 100, 200, 25, 50, 100, 200, 25, 50, 100, 200, 25, 50, 100, 200,
]

/** Longest frame the format allows, and the longest packet. */
export const MAX_FRAME_BYTES = 1275
const MAX_PACKET_TENTHS = 1200

export interface OpusPacketInfo {
  /** The TOC byte with its frame-count code cleared: configuration and stereo flag. */
  readonly config: number
  /** One frame's duration, tenths of a millisecond. */
  readonly frameTenths: number
  /** The frames, as views on the packet. */
  readonly frames: ReadonlyArray<Uint8Array>
}

/** A frame length as coded in a packet (1 or 2 bytes); null when the bytes run out. */
const readLength = (packet: Uint8Array, at: number): { length: number; bytes: number } | null => {
  if (at >= packet.length) return null
  const first = packet[at]!
  if (first < 252) return { length: first, bytes: 1 }
  if (at + 1 >= packet.length) return null
  return { length: first + 4 * packet[at + 1]!, bytes: 2 }
}

/** The frames of a packet, or null when it is not a well-formed Opus packet. */
export const parseOpusPacket = (packet: Uint8Array): OpusPacketInfo | null => {
  if (packet.length < 1) return null
  const toc = packet[0]!
  const config = toc & 0xfc
  const frameTenths = FRAME_TENTHS[toc >> 3]!
  const code = toc & 0x03
  const frames: Uint8Array[] = []
  if (code === 0) {
    if (packet.length - 1 > MAX_FRAME_BYTES) return null
    frames.push(packet.subarray(1))
  } else if (code === 1) {
    const size = packet.length - 1
    if (size % 2 !== 0 || size / 2 > MAX_FRAME_BYTES) return null
    frames.push(packet.subarray(1, 1 + size / 2), packet.subarray(1 + size / 2))
  } else if (code === 2) {
    const first = readLength(packet, 1)
    if (first === null) return null
    const start = 1 + first.bytes
    if (start + first.length > packet.length || packet.length - start - first.length > MAX_FRAME_BYTES) return null
    frames.push(packet.subarray(start, start + first.length), packet.subarray(start + first.length))
  } else {
    if (packet.length < 2) return null
    const vbr = (packet[1]! & 0x80) !== 0
    const padded = (packet[1]! & 0x40) !== 0
    const count = packet[1]! & 0x3f
    if (count === 0 || count * frameTenths > MAX_PACKET_TENTHS) return null
    let at = 2
    let padding = 0
    if (padded) {
      for (;;) {
        if (at >= packet.length) return null
        const p = packet[at++]!
        padding += p === 255 ? 254 : p
        if (p !== 255) break
      }
    }
    const end = packet.length - padding
    if (end < at) return null
    if (vbr) {
      const lengths: number[] = []
      for (let i = 0; i < count - 1; i++) {
        const l = readLength(packet, at)
        if (l === null) return null
        lengths.push(l.length)
        at += l.bytes
      }
      for (const l of lengths) {
        if (at + l > end) return null
        frames.push(packet.subarray(at, at + l))
        at += l
      }
      if (end - at > MAX_FRAME_BYTES) return null
      frames.push(packet.subarray(at, end))
    } else {
      const size = end - at
      if (size % count !== 0 || size / count > MAX_FRAME_BYTES) return null
      for (let i = 0; i < count; i++) frames.push(packet.subarray(at + (i * size) / count, at + ((i + 1) * size) / count))
    }
  }
  return { config, frameTenths, frames }
}

/**
 * Tenths of a millisecond of audio in a packet, read off its TOC (and frame-count byte) without
 * parsing the frames: the per-packet check. 0 when the packet is too short to say.
 */
export const opusPacketTenths = (packet: Uint8Array): number => {
  if (packet.length < 1) return 0
  const toc = packet[0]!
  const code = toc & 0x03
  const frames = code === 0 ? 1 : code < 3 ? 2 : packet.length < 2 ? 0 : packet[1]! & 0x3f
  return FRAME_TENTHS[toc >> 3]! * frames
}

/** One frame's duration in tenths of a millisecond, by the packet's TOC. */
export const opusFrameTenths = (packet: Uint8Array): number => FRAME_TENTHS[packet[0]! >> 3]!

/** Milliseconds of audio in a packet, or null when it is malformed. */
export const opusPacketMs = (packet: Uint8Array): number | null => {
  const info = parseOpusPacket(packet)
  return info === null ? null : (info.frameTenths * info.frames.length) / 10
}

/**
 * One packet holding `frames` (all of configuration `config`, together at most 120 ms): a single
 * frame as code 0, several as a VBR code 3 packet without padding.
 */
export const joinOpusFrames = (config: number, frames: ReadonlyArray<Uint8Array>): Uint8Array => {
  if (frames.length === 1) {
    const out = new Uint8Array(1 + frames[0]!.length)
    out[0] = config
    out.set(frames[0]!, 1)
    return out
  }
  let size = 2
  for (let i = 0; i < frames.length; i++) size += frames[i]!.length + (i < frames.length - 1 ? (frames[i]!.length < 252 ? 1 : 2) : 0)
  const out = new Uint8Array(size)
  out[0] = config | 0x03
  out[1] = 0x80 | frames.length
  let at = 2
  for (let i = 0; i < frames.length - 1; i++) {
    const l = frames[i]!.length
    if (l < 252) out[at++] = l
    else {
      const first = 252 + (l & 0x03)
      out[at++] = first
      out[at++] = (l - first) >> 2
    }
  }
  for (const f of frames) {
    out.set(f, at)
    at += f.length
  }
  return out
}
