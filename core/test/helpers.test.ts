import * as Schema from 'effect/Schema'
import { describe, expect, it } from 'vitest'
import { ManualClock } from '../clock.js'
import { defineSettings, defineTransport, intBetween, Port, sectionOf, setting } from '../index.js'
import { mergeConfig, runCli, startTestEngine, tempDir } from './helpers.js'

/** A transport with listener settings of its own, as the MQTT one has (core's tests import no transport). */
const probeSettings = defineSettings('probe', {
  port: setting(Port, 7000, 'plain listener'),
  tlsPort: setting(Schema.NullOr(Port), null, 'TLS listener; null: off'),
  maxInflight: setting(intBetween(1, 100), 16, 'unacknowledged messages'),
})
const probe = (started: string[] = []) =>
  defineTransport('probe', { settings: probeSettings, create: () => ({ start: async () => void started.push('probe'), stop: async () => {} }) })

describe('test engines are hermetic', () => {
  it("keep every listener on a free port when a test passes its own settings for a listener's section", async () => {
    const t = await startTestEngine({ rest: { bodyLimitBytes: 2048 }, probe: { maxInflight: 4 }, extensions: [probe()] })
    try {
      const s = t.engine.settings
      const p = sectionOf(s, probeSettings)
      expect([s.rest.port, p.port, p.tlsPort]).toEqual([0, 0, null])
      expect([s.rest.bodyLimitBytes, p.maxInflight, s.log.level]).toEqual([2048, 4, 'silent'])
      expect(t.engine.ports.rest).toBeGreaterThan(0)
      expect((await fetch(t.url('/healthz'))).status).toBe(200)
    } finally {
      await t.stop()
    }
  })

  it.each([
    [{ rest: { port: 9000 } }, 'rest.port=9000'],
    [{ probe: { tlsPort: 8883 } }, 'probe.tlsPort=8883'],
  ])('refuse a fixed port (%#)', async (config, named) => {
    const started: string[] = []
    await expect(startTestEngine({ ...config, extensions: [probe(started)] })).rejects.toThrow(named)
    expect(started).toEqual([])
  })
})

describe('hark processes of tests', () => {
  it("do not inherit this process's HARK_* settings", async () => {
    const dir = tempDir()
    process.env.HARK_LOG_LEVEL = 'loud'
    try {
      const r = await runCli(['workspace', 'list', '--json', '--data', dir.path])
      expect({ code: r.code, stderr: r.stderr, stdout: r.stdout }).toEqual({ code: 0, stderr: '', stdout: '[]\n' })
    } finally {
      delete process.env.HARK_LOG_LEVEL
      dir.remove()
    }
  })
})

describe('mergeConfig', () => {
  it('merges plain objects at every depth and takes anything else as given', () => {
    const clock = new ManualClock(0)
    const ext = [{ kind: 'plugin', name: 'x' }]
    const merged = mergeConfig(
      { a: { b: { c: 1, d: 2 }, e: 3 }, f: [1], g: { h: 1 }, clock: null as unknown },
      { a: { b: { c: 9 } }, f: ext, g: null, clock },
    )
    expect(merged).toEqual({ a: { b: { c: 9, d: 2 }, e: 3 }, f: ext, g: null, clock })
    expect(merged.f).toBe(ext)
    expect(merged.clock).toBe(clock)
  })
})
