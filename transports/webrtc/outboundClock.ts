/**
 * Sequence numbers and timestamps of the one outbound RTP stream a WebRTC peer receives. The
 * room's mixed stream is made of frames from whoever is talking — one source forwarded untouched,
 * then a server mix (source id 0), then another source — each with its own sequence counter and
 * packet durations, and nothing at all while nobody talks. The browser must see one continuous
 * stream (one SSRC, set by the sender), so this clock rewrites them:
 *
 *   - the sequence number goes up by exactly 1 per packet sent, across every source switch;
 *   - the timestamp advances by the previous packet's duration (read from its Opus TOC), so a
 *     steady talker plays with no gap and no overlap however its packets jitter;
 *   - when the wall clock says more time passed than that (nobody talked, or the talker's packets
 *     stopped) by over GAP_TOLERANCE_MS, the timestamp follows the wall clock instead and the packet
 *     carries the RTP marker bit: the start of a talk spurt, which receivers handle as silence,
 *     not loss. So the stream never drifts behind real time by more than the tolerance.
 *
 * Plain numbers only: it runs once per frame per peer.
 */

/** Opus over RTP counts 48 kHz samples (RFC 7587). */
export const RTP_CLOCK_RATE = 48_000
const SAMPLES_PER_MS = RTP_CLOCK_RATE / 1000
/** Lateness beyond a packet's duration that is still jitter, not a gap. */
export const GAP_TOLERANCE_MS = 60
/** Duration assumed for a packet whose TOC cannot be read (20 ms). */
export const DEFAULT_PACKET_SAMPLES = 960

export class OutboundClock {
  /** Of the packet just stamped by `next`. */
  sequenceNumber: number
  timestamp: number
  marker = true
  /** Packets stamped, and how many of them restarted the timeline (talk spurts after silence). */
  packets = 0
  spurts = 0
  private lastAtMs = 0
  private lastSamples = DEFAULT_PACKET_SAMPLES

  constructor(random: () => number = Math.random) {
    // Random initial values (RFC 3550 §5.1).
    this.sequenceNumber = Math.floor(random() * 0x10000)
    this.timestamp = Math.floor(random() * 0x1_0000_0000) >>> 0
  }

  /** Stamp the next packet, which arrived at `nowMs` (monotonic) and holds `samples` (48 kHz; 0 = unknown). */
  next(nowMs: number, samples: number): void {
    if (this.packets > 0) {
      this.sequenceNumber = (this.sequenceNumber + 1) & 0xffff
      const elapsed = (nowMs - this.lastAtMs) * SAMPLES_PER_MS
      let advance = this.lastSamples
      this.marker = elapsed - advance > GAP_TOLERANCE_MS * SAMPLES_PER_MS
      if (this.marker) {
        advance = Math.round(elapsed)
        this.spurts++
      }
      this.timestamp = (this.timestamp + advance) >>> 0
    } else this.spurts = 1
    this.packets++
    this.lastAtMs = nowMs
    this.lastSamples = samples > 0 ? samples : DEFAULT_PACKET_SAMPLES
  }
}
