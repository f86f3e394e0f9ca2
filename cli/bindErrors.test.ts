/**
 * `hark start` when a listener's port is held by another process: one last line that names the
 * listener, the address and the flag that moves it, exit 1, and no log line after it.
 */
import { createServer, type Server } from 'node:net'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { repoRoot, tempDir } from '../core/test/helpers.js'
import { killLeftovers, spawnHark } from './test/harkProcess.js'

let dir: ReturnType<typeof tempDir>
let held: Server
let port: number
beforeEach(async () => {
  dir = tempDir()
  held = createServer((socket) => socket.destroy())
  await new Promise<void>((resolve) => held.listen(0, '127.0.0.1', resolve))
  port = (held.address() as { port: number }).port
})
afterEach(async () => {
  killLeftovers()
  dir.remove()
  await new Promise((resolve) => held.close(resolve))
})

describe('hark start with a port held by another process', () => {
  it.each([
    ['rest', 'rest-port', 'HARK_REST_PORT'],
    ['gateway', 'gateway-port', 'HARK_GATEWAY_PORT'],
    ['mqtt', 'mqtt-port', 'HARK_MQTT_PORT'],
    ['mqtt-tls', 'mqtt-tls-port', 'HARK_MQTT_TLS_PORT'],
    ['console', 'console-port', 'HARK_CONSOLE_PORT'],
  ])('%s: one fatal line naming --%s, exit 1, nothing after it', async (listener, flag, env) => {
    const ports = { 'rest-port': 0, 'gateway-port': 0, 'mqtt-port': 0, 'mqtt-tls-port': 0, 'console-port': 0, [flag]: port }
    const hark = spawnHark([
      process.execPath, join(repoRoot, 'bin/hark.js'), 'start', '--data', dir.path, '--log-format', 'json',
      ...Object.entries(ports).flatMap(([f, p]) => [`--${f}`, String(p)]),
    ])
    expect(await hark.exited).toBe(1)
    const lines = hark.lines.items
    const fatal = `hark: cannot listen on 127.0.0.1:${port} (${listener}): address already in use; choose another port with --${flag} (or ${env})`
    // The gateway's uWebSockets.js gives no reason for a failed listen.
    const expected = listener === 'gateway' ? fatal.replace('address already in use', 'the address is in use or not available') : fatal
    expect(lines.at(-1)).toBe(expected)
    expect(lines.filter((l) => l.startsWith('hark: '))).toEqual([expected])
    const listening = lines.slice(0, -1).map((l) => JSON.parse(l) as { msg: string; listener?: string }).filter((l) => l.msg === 'listening')
    expect(listening.map((l) => l.listener)).not.toContain(listener)
  })

  it('an address that is not of this machine: the line names --host, not a port flag', async () => {
    // 192.0.2.1 is TEST-NET-1 (RFC 5737): never an address of this machine.
    const hark = spawnHark([
      process.execPath, join(repoRoot, 'bin/hark.js'), 'start', '--data', dir.path, '--host', '192.0.2.1',
      '--rest-port', '0', '--gateway-port', '0', '--mqtt-port', '0', '--console-port', '0',
    ])
    expect(await hark.exited).toBe(1)
    expect(hark.lines.items.at(-1)).toBe(
      'hark: cannot listen on 192.0.2.1:0 (rest): address not available on this machine; choose an address of this machine with --host (or HARK_HOST)',
    )
  })
})
