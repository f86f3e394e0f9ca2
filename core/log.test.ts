import { Writable } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { createLogger } from './log.js'

describe('logger', () => {
  it('never writes secret-bearing fields', () => {
    const lines: string[] = []
    const sink = new Writable({ write: (chunk, _enc, cb) => (lines.push(String(chunk)), cb()) })
    const log = createLogger('info', sink)
    log.info({ token: 'eyJsecret', apiKey: 'hk_secret', req: { authorization: 'Bearer hk_x', password: 'hkd_pw' }, a: { b: { secret: 's' } } }, 'hello')
    const out = lines.join('')
    for (const secret of ['eyJsecret', 'hk_secret', 'Bearer hk_x', 'hkd_pw', '"s"']) expect(out).not.toContain(secret)
    expect(out).toContain('[redacted]')
    expect(out).toContain('hello')
  })

  it('redacts provider keys and the master key even when a whole settings object is logged', () => {
    const lines: string[] = []
    const sink = new Writable({ write: (chunk, _enc, cb) => (lines.push(String(chunk)), cb()) })
    const settings = { security: { masterKey: 'MASTERKEYVALUE' }, agents: { openaiRealtime: { apiKey: 'sk-PROVIDERKEY' } } }
    createLogger('info', sink).info({ settings }, 'settings')
    const out = lines.join('')
    expect(out).not.toContain('MASTERKEYVALUE')
    expect(out).not.toContain('sk-PROVIDERKEY')
  })
})
