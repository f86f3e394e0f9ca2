/**
 * The bench's audio stand-in: a frame of `size` bytes (≈100, like a 20 ms Opus packet) whose
 * first 20 bytes say who sent it, its sequence number and its send time (monotonic µs, see
 * harness/clock.ts), so any receiving process can compute the latency. Protocol hooks wrap and
 * unwrap it; they never change it.
 *
 *   0  u32 LE  magic "HBF1"
 *   4  u32 LE  sender: the talker's index in the run
 *   8  u32 LE  sequence number of this talker's frames
 *   12 f64 LE  send time, µs on CLOCK_MONOTONIC
 *   20 …       filler up to `size`
 */
export const FRAME_MAGIC = 0x31464248 // "HBF1" read as u32 LE
export const FRAME_HEADER_BYTES = 20

/** A fresh frame (the socket may hold on to it, so frames are never reused). */
export const encodeFrame = (template: Buffer, sender: number, seq: number, sentUs: number): Buffer => {
  const b = Buffer.allocUnsafe(template.length)
  template.copy(b)
  b.writeUInt32LE(sender, 4)
  b.writeUInt32LE(seq >>> 0, 8)
  b.writeDoubleLE(sentUs, 12)
  return b
}

/** The constant part of every frame of `size` bytes: magic and filler. */
export const frameTemplate = (size: number): Buffer => {
  if (!Number.isInteger(size) || size < FRAME_HEADER_BYTES) throw new Error(`frame size must be ≥ ${FRAME_HEADER_BYTES}`)
  const b = Buffer.alloc(size, 0x5a)
  b.writeUInt32LE(FRAME_MAGIC, 0)
  b.fill(0, 4, FRAME_HEADER_BYTES)
  return b
}

export const isFrame = (b: Buffer): boolean => b.length >= FRAME_HEADER_BYTES && b.readUInt32LE(0) === FRAME_MAGIC
export const frameSender = (b: Buffer): number => b.readUInt32LE(4)
export const frameSeq = (b: Buffer): number => b.readUInt32LE(8)
export const frameSentUs = (b: Buffer): number => b.readDoubleLE(12)
