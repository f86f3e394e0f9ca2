/**
 * An Ogg Opus stream writer (RFC 7845 over RFC 3533): OpusHead and OpusTags header pages, then
 * audio pages whose granule position counts 48 kHz samples. Written here rather than taken from
 * npm: the registry has Ogg demuxers and decoders (prism-media, ogg-opus-decoder) but no
 * maintained muxer, and a muxer is a page header, a lacing table and a CRC.
 *
 * Hot path: `append` copies one Opus packet into the track's preallocated page body and adds its
 * lacing values; nothing is allocated. `takePage` (off the hot path: the recorder's flush timer)
 * closes the page into a new Buffer for the file writer.
 */

/**
 * Ogg's CRC-32: polynomial 0x04c11db7, initial 0, no reflection, no final xor (RFC 3533 §6). The
 * table and the running value stay int32 (an unsigned value past 2^31 would be a heap number per
 * byte: 9 ns a byte here, against ~1 ns as int32).
 */
const CRC_TABLE = (() => {
  const t = new Int32Array(256)
  for (let i = 0; i < 256; i++) {
    let r = i << 24
    for (let k = 0; k < 8; k++) r = r & 0x80000000 ? (r << 1) ^ 0x04c11db7 : r << 1
    t[i] = r
  }
  return t
})()

export const oggCrc = (bytes: Uint8Array, start = 0, end = bytes.length): number => {
  let crc = 0
  for (let i = start; i < end; i++) crc = (crc << 8) ^ CRC_TABLE[((crc >>> 24) ^ bytes[i]!) & 0xff]!
  return crc >>> 0
}

export const OGG_HEADER_BYTES = 27
export const FLAG_CONTINUED = 0x01
export const FLAG_BOS = 0x02
export const FLAG_EOS = 0x04
/** 20 ms at 48 kHz: the unit of granule positions in Ogg Opus is always 48 kHz samples. */
export const SAMPLES_20MS = 960

/** A 20 ms CELT packet that decodes to digital silence (TOC 0xf8: config 31, mono, one frame). */
export const SILENCE_PACKET = Uint8Array.of(0xf8, 0xff, 0xfe)

const FRAME_SAMPLES_SILK = [480, 960, 1920, 2880]
const FRAME_SAMPLES_HYBRID = [480, 960]
const FRAME_SAMPLES_CELT = [120, 240, 480, 960]

/** 48 kHz samples of the Opus packet at `packet[offset..end)` (RFC 6716 §3.1), 0 when it is malformed. */
export const opusPacketSamples = (packet: Uint8Array, offset: number, end: number): number => {
  if (end <= offset) return 0
  const toc = packet[offset]!
  const config = toc >>> 3
  const frame = config < 12 ? FRAME_SAMPLES_SILK[config & 3]! : config < 16 ? FRAME_SAMPLES_HYBRID[config & 1]! : FRAME_SAMPLES_CELT[config & 3]!
  const code = toc & 3
  const frames = code === 0 ? 1 : code < 3 ? 2 : end - offset > 1 ? packet[offset + 1]! & 0x3f : 0
  const samples = frame * frames
  return samples > 5760 ? 0 : samples // at most 120 ms per packet
}

const writeU32 = (b: Uint8Array, at: number, v: number): void => {
  b[at] = v & 0xff
  b[at + 1] = (v >>> 8) & 0xff
  b[at + 2] = (v >>> 16) & 0xff
  b[at + 3] = (v >>> 24) & 0xff
}

/** One complete Ogg page (header, lacing, body) with its CRC. */
export const oggPage = (flags: number, granule: number, serial: number, seq: number, lacing: Uint8Array, body: Uint8Array): Buffer => {
  const page = Buffer.allocUnsafe(OGG_HEADER_BYTES + lacing.length + body.length)
  page.write('OggS', 0, 'latin1')
  page[4] = 0
  page[5] = flags
  // Granule positions stay far below 2^53 (a year of audio is 1.5e12 samples).
  writeU32(page, 6, granule % 0x100000000)
  writeU32(page, 10, Math.floor(granule / 0x100000000))
  writeU32(page, 14, serial)
  writeU32(page, 18, seq)
  writeU32(page, 22, 0)
  page[26] = lacing.length
  page.set(lacing, OGG_HEADER_BYTES)
  page.set(body, OGG_HEADER_BYTES + lacing.length)
  writeU32(page, 22, oggCrc(page))
  return page
}

/** The identification header (RFC 7845 §5.1): mono, channel mapping family 0. */
export const opusHead = (preSkip: number, inputRate: number): Buffer => {
  const h = Buffer.alloc(19)
  h.write('OpusHead', 0, 'latin1')
  h[8] = 1
  h[9] = 1
  h.writeUInt16LE(preSkip, 10)
  h.writeUInt32LE(inputRate, 12)
  h.writeInt16LE(0, 16)
  h[18] = 0
  return h
}

/** The comment header (RFC 7845 §5.2): vendor and `KEY=value` comments. */
export const opusTags = (vendor: string, comments: ReadonlyArray<string>): Buffer => {
  const parts = [Buffer.from('OpusTags', 'latin1')]
  const u32 = (n: number) => {
    const b = Buffer.alloc(4)
    b.writeUInt32LE(n)
    return b
  }
  const v = Buffer.from(vendor, 'utf8')
  parts.push(u32(v.length), v, u32(comments.length))
  for (const c of comments) {
    const cb = Buffer.from(c, 'utf8')
    parts.push(u32(cb.length), cb)
  }
  return Buffer.concat(parts)
}

const lacingOf = (length: number): Uint8Array => {
  const n = Math.floor(length / 255) + 1
  const l = new Uint8Array(n).fill(255)
  l[n - 1] = length % 255
  return l
}

/** Largest page body kept before a page must be closed (a second of 64 kbit/s is 8 KiB). */
const BODY_CAPACITY = 48 * 1024
/** Lacing values per page (RFC 3533: one byte counts them). */
const MAX_SEGMENTS = 255
/** A page holds at most a second of audio (opusinfo warns of "high muxing delay" past it; a crash loses at most one page). */
const MAX_PAGE_SAMPLES = 48000

/**
 * The pages of one Ogg Opus stream. Packets are never split across pages (Opus packets are at
 * most 1275 bytes per frame; Hark's uplink caps a packet at 1500), so every page ends on a packet.
 */
export class OggOpusStream {
  private readonly body = new Uint8Array(BODY_CAPACITY)
  private bodyBytes = 0
  private readonly lacing = new Uint8Array(MAX_SEGMENTS)
  private segments = 0
  private seq = 0
  /** The granule position where the open page began. */
  private pageStart = 0
  /** 48 kHz samples of every packet appended so far (the granule position after the last one). */
  granule = 0
  /** Bytes of every page taken so far. */
  bytes = 0
  packets = 0

  constructor(readonly serial: number) {}

  /** The two header pages (BOS with OpusHead, then OpusTags); call once, first. */
  headers(preSkip: number, inputRate: number, comments: ReadonlyArray<string>): Buffer {
    const head = opusHead(preSkip, inputRate)
    const tags = opusTags('hark', comments)
    const pages = Buffer.concat([
      oggPage(FLAG_BOS, 0, this.serial, this.seq++, lacingOf(head.length), head),
      oggPage(0, 0, this.serial, this.seq++, lacingOf(tags.length), tags),
    ])
    this.bytes += pages.length
    return pages
  }

  /** Room for a packet of `length` bytes on the open page (and it holds less than a second). */
  fits(length: number): boolean {
    return (
      this.segments + Math.floor(length / 255) + 1 <= MAX_SEGMENTS &&
      this.bodyBytes + length <= BODY_CAPACITY &&
      this.granule - this.pageStart < MAX_PAGE_SAMPLES
    )
  }

  get pending(): boolean {
    return this.segments > 0
  }

  /** Hot path: copy `packet[offset..end)` (one Opus packet of `samples` 48 kHz samples) onto the open page; the caller checked `fits`. */
  append(packet: Uint8Array, offset: number, end: number, samples: number): void {
    let length = end - offset
    // A byte loop, not body.set(packet.subarray(…)): no view allocated per packet.
    const body = this.body
    let at = this.bodyBytes
    for (let i = offset; i < end; i++) body[at++] = packet[i]!
    this.bodyBytes = at
    while (length >= 255) {
      this.lacing[this.segments++] = 255
      length -= 255
    }
    this.lacing[this.segments++] = length
    this.granule += samples
    this.packets++
  }

  /** Close the open page (null when it holds nothing and `eos` is not asked). `granule` overrides the end position (end trimming). */
  takePage(eos: boolean, granule = this.granule): Buffer | null {
    if (this.segments === 0 && !eos) return null
    const page = oggPage(eos ? FLAG_EOS : 0, granule, this.serial, this.seq++, this.lacing.subarray(0, this.segments), this.body.subarray(0, this.bodyBytes))
    this.segments = 0
    this.bodyBytes = 0
    this.pageStart = this.granule
    this.bytes += page.length
    return page
  }
}
