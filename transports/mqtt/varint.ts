/**
 * MQTT's Variable Byte Integer (MQTT 5.0 §1.5.5, 3.1.1 §2.2.3): 7 bits a byte, least significant
 * group first, the high bit set on every byte but the last; 1 to 4 bytes, up to 268,435,455. The
 * one encoder of the repository: the downlink PUBLISH template, the tests' hand-built packets and
 * the bench's raw-MQTT generator all write lengths with it. (Reading one is PacketFramer's job.)
 */

/** Bytes the encoding of `n` takes. */
export const varintSize = (n: number): number => (n < 0x80 ? 1 : n < 0x4000 ? 2 : n < 0x200000 ? 3 : 4)

/** Write `n` at `pos`; returns the position after it. */
export const writeVarint = (dst: Uint8Array, pos: number, n: number): number => {
  do {
    let byte = n % 128
    n = Math.floor(n / 128)
    if (n > 0) byte |= 0x80
    dst[pos++] = byte
  } while (n > 0)
  return pos
}

/** The encoding of `n` as bytes (for packets built by hand). */
export const varint = (n: number): number[] => {
  const out = new Uint8Array(varintSize(n))
  writeVarint(out, 0, n)
  return [...out]
}
