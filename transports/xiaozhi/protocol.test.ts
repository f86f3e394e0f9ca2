import { describe, expect, it } from 'vitest'
import { opusOffset, readBinary, readDeviceMessage, writeBinary, type ProtocolVersion } from './protocol.js'

const opus = Uint8Array.from([0x4b, 0x41, 1, 2, 3])
const utf8 = (s: string) => new TextEncoder().encode(s)

describe('xiaozhi binary protocols', () => {
  it.each([1, 2, 3] as ProtocolVersion[])('version %i: what the server writes, the same layout reads back', (version) => {
    const framed = writeBinary(version, opus, new Uint8Array(64), 1234).slice()
    expect(framed.length).toBe(opus.length + [0, 0, 16, 4][version]!)
    expect(opusOffset(version, framed)).toBe([0, 0, 16, 4][version])
    expect(readBinary(version, framed)).toEqual({ kind: 'opus', opus })
  })

  it('writes the v2 and v3 headers byte by byte (big-endian)', () => {
    expect([...writeBinary(2, opus, new Uint8Array(64), 0x01020304).subarray(0, 16)]).toEqual([0, 2, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4, 0, 0, 0, 5])
    expect([...writeBinary(3, opus, new Uint8Array(64), 0).subarray(0, 4)]).toEqual([0, 0, 0, 5])
    expect(writeBinary(1, opus, new Uint8Array(0), 0)).toBe(opus)
  })

  it('reads JSON carried in a v2 message, and refuses what the fast check refuses', () => {
    const json = utf8('{"type":"listen","state":"stop"}')
    const v2 = new Uint8Array(16 + json.length)
    v2.set([0, 2, 0, 1], 0)
    new DataView(v2.buffer).setUint32(12, json.length)
    v2.set(json, 16)
    expect(opusOffset(2, v2)).toBe(-1)
    expect(readBinary(2, v2)).toEqual({ kind: 'json', text: json })
    // An oversized packet is framed well: its size is refused with the uplink's other limits (TerminalInput).
    expect(opusOffset(1, new Uint8Array(1501))).toBe(0)
    const cases: Array<[ProtocolVersion, Uint8Array]> = [
      [3, Uint8Array.from([0, 0, 0, 9, 1])],
      [3, Uint8Array.from([7, 0, 0, 1, 1])],
      [3, Uint8Array.from([0, 0])],
      [2, new Uint8Array(10)],
      [2, Uint8Array.from([0, 3, 0, 0, ...new Array(12).fill(0)])],
    ]
    for (const [version, data] of cases) {
      expect(opusOffset(version, data)).toBe(-1)
      expect(readBinary(version, data)).toMatchObject({ kind: 'error' })
    }
  })
})

describe('xiaozhi JSON from the device', () => {
  it('reads the messages the firmware sends, as it writes them', () => {
    expect(readDeviceMessage(utf8('{"session_id":"s","type":"listen","state":"start","mode":"realtime"}'), 1)).toEqual({
      ok: true, message: { type: 'listen', state: 'start', mode: 'realtime' },
    })
    expect(readDeviceMessage(utf8('{"session_id":"s","type":"listen","state":"detect","text":"Hi XiaoZhi"}'), 1)).toEqual({
      ok: true, message: { type: 'listen', state: 'detect', text: 'Hi XiaoZhi' },
    })
    expect(readDeviceMessage(utf8('{"session_id":"s","type":"abort","reason":"wake_word_detected"}'), 1)).toEqual({
      ok: true, message: { type: 'abort', reason: 'wake_word_detected' },
    })
    expect(readDeviceMessage(utf8('{"session_id":"","type":"iot","update":true,"states":[]}'), 1)).toEqual({ ok: true, message: { type: 'iot' } })
    // v1.6.2 wrote its hello by hand, with a space after "version":
    const hello = readDeviceMessage(utf8('{"type":"hello","version": 2,"transport":"websocket","audio_params":{"format":"opus", "sample_rate":16000, "channels":1, "frame_duration":60}}'), 2)
    expect(hello).toMatchObject({ ok: true, message: { type: 'hello', version: 2, features: {}, audio_params: { frame_duration: 60 } } })
  })

  it('says fatal for what cannot be a message and not fatal for a bad field', () => {
    expect(readDeviceMessage(utf8('nope'), 1)).toMatchObject({ ok: false, fatal: true })
    expect(readDeviceMessage(utf8('{"state":"start"}'), 1)).toMatchObject({ ok: false, fatal: true })
    expect(readDeviceMessage(new Uint8Array([0x7b, 0xff, 0x7d]), 1)).toMatchObject({ ok: false, fatal: true })
    expect(readDeviceMessage(utf8('{"type":"listen","state":"start","mode":"loud"}'), 1)).toMatchObject({ ok: false, fatal: false })
  })
})
