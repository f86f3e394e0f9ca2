import { Writable } from 'node:stream'
import { stripVTControlCharacters } from 'node:util'
import { describe, expect, it } from 'vitest'
import { chooseLogFormat, createLogger } from './log.js'

/** A stream that keeps what is written, optionally claiming to be a terminal. */
const sink = (isTTY = false) => {
  const lines: string[] = []
  const stream = Object.assign(new Writable({ write: (chunk, _enc, cb) => (lines.push(String(chunk)), cb()) }), { isTTY })
  return { lines, stream }
}

describe('logger', () => {
  it('never writes secret-bearing fields', () => {
    const { lines, stream } = sink()
    const log = createLogger('info', stream)
    log.info({ token: 'eyJsecret', apiKey: 'hk_secret', req: { authorization: 'Bearer hk_x', password: 'hkd_pw' }, a: { b: { secret: 's' } } }, 'hello')
    const out = lines.join('')
    for (const secret of ['eyJsecret', 'hk_secret', 'Bearer hk_x', 'hkd_pw', '"s"']) expect(out).not.toContain(secret)
    expect(out).toContain('[redacted]')
    expect(out).toContain('hello')
  })

  it('redacts provider keys and the master key even when a whole settings object is logged', () => {
    const { lines, stream } = sink()
    const settings = { security: { masterKey: 'MASTERKEYVALUE' }, agents: { openaiRealtime: { apiKey: 'sk-PROVIDERKEY' } } }
    createLogger('info', stream).info({ settings }, 'settings')
    const out = lines.join('')
    expect(out).not.toContain('MASTERKEYVALUE')
    expect(out).not.toContain('sk-PROVIDERKEY')
  })

  it('auto is pretty on a terminal and JSON elsewhere; pretty and json are what they say', () => {
    expect(chooseLogFormat('auto', true)).toBe('pretty')
    expect(chooseLogFormat('auto', false)).toBe('json')
    expect(chooseLogFormat('json', true)).toBe('json')
    expect(chooseLogFormat('pretty', false)).toBe('pretty')
  })

  it('writes readable lines (time, level, message, key=value) to a terminal, redacted as JSON is, and JSON elsewhere', () => {
    const { lines, stream } = sink(true)
    const log = createLogger('info', stream, 'auto')
    log.info({ listener: 'rest', port: 8080, path: '/tmp/a b', token: 'eyJsecret', nested: { n: 1 } }, 'listening')
    log.error({ err: new Error('it broke') }, 'change poll failed')
    const [first, second] = lines.map(stripVTControlCharacters)
    expect(first).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: listening listener=rest port=8080 path="\/tmp\/a b" token=\[redacted\] nested=\{"n":1\}\n$/)
    expect(first).not.toContain('eyJsecret')
    expect(first!.trim().split('\n')).toHaveLength(1)
    expect(second).toMatch(/^\[[\d:.]+\] ERROR: change poll failed err="it broke"\n/)
    expect(second).toMatch(/\n {4}at /)

    // The same logger told json, or auto on a stream that is not a terminal: JSON lines.
    for (const [format, isTTY] of [['json', true], ['auto', false]] as const) {
      const json = sink(isTTY)
      createLogger('info', json.stream, format).info({ port: 8080 }, 'listening')
      expect(JSON.parse(json.lines[0]!)).toMatchObject({ level: 30, msg: 'listening', port: 8080 })
    }
  })
})
