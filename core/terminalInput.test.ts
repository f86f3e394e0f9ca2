import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { ManualClock } from './clock.js'
import { parseDownlink } from './dataplane/frame.js'
import type { Engine } from './engine.js'
import { ValidationFailed } from './errors.js'
import type { ServerEvent } from './events.js'
import { TerminalInput } from './terminalInput.js'
import { RecordingLink, seedWorkspace, startTestEngine, uplink } from './test/helpers.js'

let t: Awaited<ReturnType<typeof startTestEngine>>
let engine: Engine
let seed: ReturnType<typeof seedWorkspace>

/** Two terminals in one room, through the real hub; `a` sends through a TerminalInput as a transport would. */
const pair = async (input: TerminalInput) => {
  seed.addClient('a', 'lobby')
  seed.addClient('b', 'lobby')
  const open = async (clientId: string) => {
    const link = new RecordingLink()
    const { token } = await engine.host.security.tokens.issue(seed.workspaceId, clientId, null)
    const session = engine.host.terminals.open(await engine.host.security.authenticateTerminal({ token }), link)
    await link.event('session')
    return { link, session }
  }
  const a = await open('a')
  const b = await open('b')
  const replies: ServerEvent[] = []
  const control = (message: Uint8Array | string) => input.control(a.session, message, { sendEvent: (e) => replies.push(e) })
  return { a, b, replies, control }
}

beforeEach(async () => {
  t = await startTestEngine()
  engine = t.engine
  seed = seedWorkspace(engine)
})
afterEach(() => t.stop())

describe('terminal input, the same checks for every transport', () => {
  it('takes audio into the room, drops and counts it over the frame rate, and refuses malformed frames', async () => {
    const drops = { count: 0 }
    const input = new TerminalInput(
      { clock: new ManualClock(0), rateDrops: drops, limits: { audioFramesPerSecond: 10, audioFrameBurst: 2, controlMessagesPerSecond: 10, controlMessageBurst: 2 } },
      0,
    )
    const { a, b } = await pair(input)
    expect(input.audio(a.session, uplink([1, 2]), 0)).toBeNull()
    expect(input.audio(a.session, uplink([3, 4]), 0)).toBeNull()
    expect(input.audio(a.session, uplink([5, 6]), 0)).toBeNull() // over the burst: dropped
    expect(drops.count).toBe(1)
    expect(input.audio(a.session, uplink([7, 8]), 100)).toBeNull() // one token back after 100 ms at 10/s
    await b.link.frames.next((f) => f[6] === 7)
    expect(b.link.frames.items.map((f) => [...parseDownlink(f)!.opus])).toEqual([[1, 2], [3, 4], [7, 8]])

    expect(input.audio(a.session, Uint8Array.of(0x80), 200)).toMatchObject({ _tag: 'ProtocolError' })
    expect(input.audio(a.session, new Uint8Array(1502), 200)).toMatchObject({ _tag: 'FrameTooLarge' })
    expect(input.audio(null, uplink([1]), 200)).toMatchObject({ _tag: 'ProtocolError', message: 'audio sent before the session event' })
    expect(input.audioFromOpus(a.session, 0x80, new Uint8Array(0), 200)).toBeNull() // padding
    expect(input.audioFromOpus(a.session, 0x80, new Uint8Array(1501), 200)).toMatchObject({ _tag: 'FrameTooLarge' })
    expect(input.audioFromOpus(a.session, 0x80 | 9, Uint8Array.of(42), 300)).toBeNull()
    expect(parseDownlink(await b.link.frames.next((f) => f[6] === 42))).toMatchObject({ levelByte: 0x80 | 9 })
  })

  it('answers control messages, sends error events for bad fields, and refuses the fatal ones', async () => {
    const clock = new ManualClock(1234)
    const input = new TerminalInput(
      {
        clock,
        rateDrops: { count: 0 },
        limits: { audioFramesPerSecond: 10, audioFrameBurst: 10, controlMessagesPerSecond: 1, controlMessageBurst: 4 },
        refuse: (m) => (m.type === 'audio.mode' && m.audioMode === 'forward' ? new ValidationFailed({ field: 'audioMode', message: 'mixed only' }) : null),
      },
      0,
    )
    const { a, replies, control } = await pair(input)
    expect(control(new TextEncoder().encode('{"type":"ping","id":"x"}'))).toBeNull()
    expect(replies.at(-1)).toEqual({ type: 'pong', id: 'x', serverTime: 1234 })
    expect(control('{"type":"audio.mode","audioMode":"forward","id":2}')).toMatchObject({ fatal: false, error: { _tag: 'ValidationFailed' } })
    expect(replies.at(-1)).toEqual({ type: 'error', code: 'validation_failed', message: 'mixed only', id: 2 })
    expect(control('{"type":"audio.mode","audioMode":"mixed"}')).toBeNull()
    expect(await a.link.event('audio.mode')).toEqual({ type: 'audio.mode', audioMode: 'mixed' })
    expect(control(Uint8Array.of(0x7b, 0xff, 0x7d))).toMatchObject({ fatal: true, error: { _tag: 'ProtocolError', message: 'control message is not valid UTF-8' } })
    clock.advance(1000) // one message back at 1/s
    expect(control('x')).toMatchObject({ fatal: true, error: { _tag: 'ProtocolError' } })
    clock.advance(1000)
    expect(control(new Uint8Array(5000))).toMatchObject({ fatal: true, error: { _tag: 'FrameTooLarge' } })
    expect(control('{"type":"ping"}')).toMatchObject({ fatal: true, error: { _tag: 'RateLimited' } })
    expect(input.control(null, '{"type":"ping"}', { sendEvent: () => {} })).toMatchObject({ fatal: true, error: { message: 'control message sent before the session event' } })
  })
})
