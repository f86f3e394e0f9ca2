/**
 * The downlink to one xiaozhi device: Opus packets of exactly the frame duration its server hello
 * announced. Room audio arrives as 20 ms packets (agents, mixes, most terminals) or 60 ms ones
 * (other devices); a packet of the announced duration passes untouched, shorter ones of one
 * configuration are joined into one packet (opusPacket.ts) as they arrive — no decoding. What
 * cannot be joined (a configuration change, a duration that does not divide the target) is sent
 * as it is: firmware from v2.0.0 plays any length, older firmware pads it with silence.
 */
import { joinOpusFrames, MAX_FRAME_BYTES, opusFrameTenths, opusPacketTenths, parseOpusPacket } from './opusPacket.js'

export class DownlinkShaper {
  private readonly targetTenths: number
  private config = -1
  private frames: Uint8Array[] = []
  private pendingTenths = 0

  constructor(targetMs: number) {
    this.targetTenths = targetMs * 10
  }

  /** Milliseconds waiting to be joined. */
  get pendingMs(): number {
    return this.pendingTenths / 10
  }

  /** One packet of room audio in; the packets to send now appended to `out`. Per packet: nothing parsed but its TOC in the common cases. */
  push(packet: Uint8Array, out: Uint8Array[]): void {
    if (packet.length === 0) return
    // A packet of the target duration, nothing waiting: as it is (a device's 60 ms packets).
    if (this.pendingTenths === 0 && opusPacketTenths(packet) === this.targetTenths) {
      out.push(packet)
      return
    }
    const frameTenths = opusFrameTenths(packet)
    const config = packet[0]! & 0xfc
    if (this.targetTenths % frameTenths !== 0) return this.asItIs(packet, out)
    if ((packet[0]! & 0x03) === 0 && packet.length - 1 <= MAX_FRAME_BYTES) {
      // One frame (agents' and mixes' 20 ms packets): its bytes follow the TOC.
      this.add(config, frameTenths, packet.subarray(1), out)
      return
    }
    const info = parseOpusPacket(packet)
    // Not Opus as we know it: the device's decoder will say so; keep the order.
    if (info === null) return this.asItIs(packet, out)
    for (const frame of info.frames) this.add(config, frameTenths, frame, out)
  }

  private add(config: number, frameTenths: number, frame: Uint8Array, out: Uint8Array[]): void {
    if (this.pendingTenths > 0 && (config !== this.config || this.pendingTenths + frameTenths > this.targetTenths)) this.flush(out)
    this.config = config
    this.frames.push(frame)
    this.pendingTenths += frameTenths
    if (this.pendingTenths === this.targetTenths) this.emit(out)
  }

  private asItIs(packet: Uint8Array, out: Uint8Array[]): void {
    this.flush(out)
    out.push(packet)
  }

  /** Send what is waiting (end of a talk spurt): a shorter packet. */
  flush(out: Uint8Array[]): void {
    if (this.pendingTenths > 0) this.emit(out)
  }

  /** Forget what is waiting (the device aborted playback). */
  reset(): void {
    this.frames = []
    this.pendingTenths = 0
  }

  private emit(out: Uint8Array[]): void {
    out.push(joinOpusFrames(this.config, this.frames))
    this.frames = []
    this.pendingTenths = 0
  }
}
