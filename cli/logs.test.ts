/**
 * Log format of a real `hark start`: readable lines on a terminal (a pseudo-TTY from util-linux
 * `script`), JSON lines into a pipe, and `log.format` (flag or HARK_LOG_FORMAT) overriding both.
 */
import { join } from 'node:path'
import { stripVTControlCharacters } from 'node:util'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { repoRoot, tempDir } from '../core/test/helpers.js'
import { killLeftovers, spawnHark, type HarkProcess } from './test/harkProcess.js'

let dir: ReturnType<typeof tempDir>
beforeEach(() => (dir = tempDir()))
afterEach(() => {
  killLeftovers()
  dir.remove()
})

const start = (extra: string[], options: { tty?: boolean; env?: Record<string, string> } = {}) =>
  spawnHark(
    [process.execPath, join(repoRoot, 'bin/hark.js'), 'start', '--data', dir.path,
      '--rest-port', '0', '--gateway-port', '0', '--mqtt-port', '0', '--console-port', '0', ...extra],
    options,
  )

/** The log lines (not the CLI's own `hark:` lines) up to the end of a clean run. */
const logLines = async (hark: HarkProcess) => {
  await hark.running()
  expect(await hark.stop()).toBe(0)
  return hark.lines.items.map(stripVTControlCharacters).filter((l) => l !== '' && !/^hark(-pid=|: )/.test(l))
}

const readable = /^\[\d\d:\d\d:\d\d\.\d{3}\] (INFO|WARN): \S/

describe('hark start logs', () => {
  it('as readable lines (time, level, message, key=value) on a terminal, as JSON lines into a pipe', async () => {
    const onTerminal = await logLines(start([], { tty: true }))
    expect(onTerminal.length).toBeGreaterThan(3)
    for (const line of onTerminal) expect(line).toMatch(readable)
    expect(onTerminal).toContainEqual(expect.stringMatching(/^\[[\d:.]+\] INFO: listening listener=rest host=127\.0\.0\.1 port=\d+$/))

    const piped = (await logLines(start([]))).map((l) => JSON.parse(l) as Record<string, unknown>)
    expect(piped).toContainEqual(expect.objectContaining({ level: 30, msg: 'listening', listener: 'rest' }))
  })

  it('as log.format says: --log-format json on a terminal', async () => {
    const lines = await logLines(start(['--log-format', 'json'], { tty: true }))
    expect(lines.length).toBeGreaterThan(3)
    for (const line of lines) expect(() => JSON.parse(line)).not.toThrow()
  })

  it('as log.format says: HARK_LOG_FORMAT=pretty into a pipe, without colour codes', async () => {
    const hark = start([], { env: { HARK_LOG_FORMAT: 'pretty' } })
    const lines = await logLines(hark)
    expect(lines.length).toBeGreaterThan(3)
    for (const line of lines) expect(line).toMatch(readable)
    expect(hark.lines.items.join('\n')).not.toContain('\u001b[')
  })

  it('refuses a log.format it does not know, naming the setting (exit 2)', async () => {
    const hark = start([], { env: { HARK_LOG_FORMAT: 'loud' } })
    expect(await hark.exited).toBe(2)
    expect(hark.lines.items).toEqual([expect.stringMatching(/^hark: invalid setting log\.format \(from HARK_LOG_FORMAT\): /)])
  })
})
