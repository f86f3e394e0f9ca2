/**
 * Reading an Ogg Opus file back: walking its pages (checking each CRC), its packets, and the
 * recovery pass's repair of a file a crash left open — cut after the last whole page, that page
 * marked end-of-stream. Off the hot path (start-up, tests).
 */
import { open } from 'node:fs/promises'
import { FLAG_EOS, OGG_HEADER_BYTES, oggCrc } from './oggOpus.js'

export interface OggPageInfo {
  readonly offset: number
  readonly length: number
  readonly flags: number
  readonly granule: number
  readonly seq: number
  /** The packets that end on this page (Hark's writer never splits one across pages). */
  readonly packets: ReadonlyArray<Uint8Array>
}

export interface OggScan {
  readonly pages: ReadonlyArray<OggPageInfo>
  /** Bytes of whole, CRC-valid pages from the start; anything after is a torn write. */
  readonly validBytes: number
  readonly preSkip: number
}

/** Every whole, valid page from the start of `file`, stopping at the first torn or corrupt one. */
export const scanOgg = (file: Uint8Array): OggScan => {
  const pages: OggPageInfo[] = []
  let at = 0
  const view = new DataView(file.buffer, file.byteOffset, file.byteLength)
  while (at + OGG_HEADER_BYTES <= file.length) {
    if (file[at] !== 0x4f || file[at + 1] !== 0x67 || file[at + 2] !== 0x67 || file[at + 3] !== 0x53) break
    const nseg = file[at + 26]!
    const headerLength = OGG_HEADER_BYTES + nseg
    if (at + headerLength > file.length) break
    let bodyLength = 0
    for (let i = 0; i < nseg; i++) bodyLength += file[at + OGG_HEADER_BYTES + i]!
    const length = headerLength + bodyLength
    if (at + length > file.length) break
    const crc = view.getUint32(at + 22, true)
    const copy = Uint8Array.from(file.subarray(at, at + length))
    copy[22] = copy[23] = copy[24] = copy[25] = 0
    if (oggCrc(copy) !== crc) break
    const packets: Uint8Array[] = []
    let p = at + headerLength
    let start = p
    for (let i = 0; i < nseg; i++) {
      const lace = file[at + OGG_HEADER_BYTES + i]!
      p += lace
      if (lace < 255) {
        packets.push(file.subarray(start, p))
        start = p
      }
    }
    const granule = view.getUint32(at + 6, true) + view.getUint32(at + 10, true) * 0x100000000
    pages.push({ offset: at, length, flags: file[at + 5]!, granule, seq: view.getUint32(at + 18, true), packets })
    at += length
  }
  const head = pages[0]?.packets[0]
  const preSkip = head && head.length >= 19 ? head[10]! | (head[11]! << 8) : 0
  return { pages, validBytes: at, preSkip }
}

/** The audio packets of a scanned stream (the two header packets left out). */
export const audioPackets = (scan: OggScan): Uint8Array[] => scan.pages.flatMap((p) => p.packets).slice(2)

/** Seconds of audio a scanned stream plays: its last granule less the pre-skip, at 48 kHz. */
export const playedSeconds = (scan: OggScan): number => {
  const last = scan.pages.at(-1)
  return last ? Math.max(0, last.granule - scan.preSkip) / 48000 : 0
}

export interface RepairResult {
  /** Seconds of audio the file plays now. */
  readonly seconds: number
  readonly bytes: number
  /** The file held no audio page at all (nothing to keep). */
  readonly empty: boolean
}

/**
 * Make a file a crash left open a finished stream: cut it after its last whole page and mark that
 * page end-of-stream (CRC written again). A file already finished is left as it is.
 */
export const repairOgg = async (path: string): Promise<RepairResult> => {
  const handle = await open(path, 'r+')
  try {
    const data = await handle.readFile()
    const scan = scanOgg(data)
    const last = scan.pages.at(-1)
    if (last === undefined || scan.pages.length < 3) {
      await handle.truncate(scan.validBytes)
      return { seconds: 0, bytes: scan.validBytes, empty: true }
    }
    if (scan.validBytes < data.length) await handle.truncate(scan.validBytes)
    if ((last.flags & FLAG_EOS) === 0) {
      const page = Uint8Array.from(data.subarray(last.offset, last.offset + last.length))
      page[5] = page[5]! | FLAG_EOS
      page[22] = page[23] = page[24] = page[25] = 0
      const crc = oggCrc(page)
      new DataView(page.buffer).setUint32(22, crc, true)
      await handle.write(page, 0, page.length, last.offset)
      await handle.datasync()
    }
    return { seconds: playedSeconds(scan), bytes: scan.validBytes, empty: false }
  } finally {
    await handle.close()
  }
}
