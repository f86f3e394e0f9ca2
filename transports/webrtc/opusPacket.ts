/**
 * How much audio one Opus packet holds, read from its TOC byte (RFC 6716 §3.1) without decoding:
 * the RTP timestamp of a WebRTC stream advances by it (Opus RTP always counts 48 kHz samples,
 * RFC 7587, whatever rate the encoder ran at).
 */

/** Samples per frame at 48 kHz by TOC configuration number (0–31). */
const FRAME_SAMPLES_48K: readonly number[] = [
  // SILK-only NB, MB, WB: 10, 20, 40, 60 ms
  480, 960, 1920, 2880, 480, 960, 1920, 2880, 480, 960, 1920, 2880,
  // Hybrid SWB, FB: 10, 20 ms
  480, 960, 480, 960,
  // CELT-only NB, WB, SWB, FB: 2.5, 5, 10, 20 ms
  120, 240, 480, 960, 120, 240, 480, 960, 120, 240, 480, 960, 120, 240, 480, 960,
]

/** A packet holds at most 120 ms of audio. */
const MAX_PACKET_SAMPLES_48K = 5760

/** Samples (at 48 kHz) in one Opus packet, or 0 when the packet is empty or malformed. */
export const opusPacketSamples48k = (packet: Uint8Array): number => {
  if (packet.length === 0) return 0
  const toc = packet[0]!
  const frame = FRAME_SAMPLES_48K[toc >> 3]!
  switch (toc & 0x03) {
    case 0:
      return frame
    case 1:
    case 2:
      return 2 * frame
    default: {
      if (packet.length < 2) return 0
      const frames = packet[1]! & 0x3f
      const samples = frames * frame
      return frames === 0 || samples > MAX_PACKET_SAMPLES_48K ? 0 : samples
    }
  }
}
