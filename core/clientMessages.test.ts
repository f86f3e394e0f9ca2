import { describe, expect, it } from 'vitest'
import { parseClientMessage } from './clientMessages.js'
import { MAX_CONTROL_MESSAGE_BYTES } from './events.js'
import { TokenBucket } from './tokenBucket.js'

const parse = (text: string) => parseClientMessage(text, Buffer.byteLength(text))

describe('client control messages', () => {
  it('reads ping and audio.mode, with an optional id', () => {
    expect(parse('{"type":"ping"}')).toEqual({ ok: true, message: { type: 'ping', id: null } })
    expect(parse('{"type":"ping","id":"abc"}')).toEqual({ ok: true, message: { type: 'ping', id: 'abc' } })
    expect(parse('{"type":"audio.mode","audioMode":"mixed","id":3}')).toEqual({
      ok: true,
      message: { type: 'audio.mode', audioMode: 'mixed', id: 3 },
    })
  })

  it.each([
    ['not JSON', '{"type":', 'ProtocolError'],
    ['an array', '[{"type":"ping"}]', 'ProtocolError'],
    ['null', 'null', 'ProtocolError'],
    ['no type', '{"id":1}', 'ProtocolError'],
    ['an empty type', '{"type":""}', 'ProtocolError'],
    ['a numeric type', '{"type":7}', 'ProtocolError'],
  ])('closes on %s', (_what, text, tag) => {
    const r = parse(text)
    expect(r).toMatchObject({ ok: false, fatal: true, error: { _tag: tag } })
  })

  it('closes on a message over the size limit, before parsing it', () => {
    const r = parseClientMessage('{"type":"ping"}', MAX_CONTROL_MESSAGE_BYTES + 1)
    expect(r).toMatchObject({ ok: false, fatal: true, error: { _tag: 'FrameTooLarge' } })
  })

  it.each([
    ['an unknown type', '{"type":"teleport","id":"t"}', { code: 'validation_failed', id: 't' }],
    ['a bad audioMode', '{"type":"audio.mode","audioMode":"loud"}', { code: 'validation_failed', id: null }],
    ['an object id', '{"type":"ping","id":{}}', { code: 'validation_failed', id: null }],
    ['a long id', `{"type":"ping","id":"${'x'.repeat(65)}"}`, { code: 'validation_failed', id: null }],
  ])('answers %s with an error event and stays open', (_what, text, event) => {
    const r = parse(text)
    expect(r).toMatchObject({ ok: false, fatal: false, event: { type: 'error', ...event } })
  })
})

describe('token bucket', () => {
  it('allows the burst, then the sustained rate', () => {
    const bucket = new TokenBucket(10, 3, 0)
    expect([0, 0, 0, 0].map(() => bucket.take(0))).toEqual([true, true, true, false])
    expect(bucket.take(50)).toBe(false)
    expect(bucket.take(100)).toBe(true)
    expect(bucket.take(100)).toBe(false)
    expect(bucket.take(10_000)).toBe(true)
  })
})
