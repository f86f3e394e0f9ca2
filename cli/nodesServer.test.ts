/**
 * `hark start --nodes` beyond the single-file default: a count it refuses (exit 2, one line), and
 * two nodes on a libSQL server (`--database-url`, sqld), each keeping its replica in a data dir of
 * its own under the one given; a kill -9 of the supervisor takes its nodes and its NATS server
 * with it.
 */
import { randomBytes } from 'node:crypto'
import { existsSync, readFileSync } from 'node:fs'
import type { Socket } from 'node:net'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { repoRoot, runCli, tempDir, uplink } from '../core/test/helpers.js'
import { startSqld, type Sqld } from '../servers/sqld.js'
import { WsTerminal } from '../transports/webrtc/test/wsTerminal.js'
import { seedSharedWorkspace } from '../cluster/test/processes.js'
import { killLeftovers, spawnHark } from './test/harkProcess.js'
import { alive, tcpHolder } from './test/socketOwner.js'

const dir = tempDir('hark-nodes-server-')
let sqld: Sqld
beforeAll(async () => {
  sqld = await startSqld()
}, 30_000)
afterAll(async () => {
  killLeftovers()
  await sqld?.stop()
  dir.remove()
})

const ports = ['--rest-port', '0', '--gateway-port', '0', '--mqtt-port', '0', '--console-port', '0']

describe('hark start --nodes refuses a count it cannot run', () => {
  it.each(['0', 'abc'])('--nodes %s: exit 2, one line saying what it takes', async (raw) => {
    const r = await runCli(['start', '--nodes', raw, '--data', join(dir.path, 'refused'), ...ports])
    expect(r.code).toBe(2)
    expect(r.stdout).toBe('')
    expect(r.stderr).toBe(`hark: --nodes takes a whole number from 1 to 256, or auto (the CPUs this process may use); got '${raw}'\n`)
    expect(existsSync(join(dir.path, 'refused'))).toBe(false)
  })
})

describe('hark start --nodes 2 --database-url', () => {
  it('runs two nodes, each with its replica in its own data dir, that share a room; kill -9 of hark ends them and NATS', async () => {
    const masterKey = randomBytes(32).toString('base64')
    const { tokens } = await seedSharedWorkspace({ root: dir.path, storageUrl: sqld.url, masterKey, name: 'server', clientIds: ['a', 'b'] })
    const data = join(dir.path, 'data')
    const hark = spawnHark([process.execPath, join(repoRoot, 'bin/hark.js'), 'start', '--nodes', '2', '--data', data, '--database-url', sqld.url, ...ports], {
      env: { HARK_SECURITY_MASTER_KEY: masterKey },
    })
    const running = await hark.line(/^hark: running on /, 50_000)
    expect(running).toContain(`database at ${sqld.url}`)
    const gateway = Number(/gateway=(\d+)/.exec(running)![1])
    const nodesLine = await hark.line(/^hark: 2 nodes in a cluster/)
    const natsPid = Number(/nats-server pid (\d+)/.exec(nodesLine)![1])
    const nodes = [...nodesLine.matchAll(/(\S+) \(pid (\d+)\)/g)].map((m) => ({ id: m[1]!, pid: Number(m[2]) }))
    expect(nodes).toHaveLength(2)
    // Each node's replica in its own data dir, under the one given.
    for (const { id } of nodes) expect(existsSync(join(data, 'nodes', id))).toBe(true)
    const cert = readFileSync(join(data, 'tls-self-signed.crt'), 'utf8')

    // One terminal on each node (the kernel spreads the gateway's connections: connect until it does).
    const pids = nodes.map((n) => n.pid)
    const on = new Map<number, WsTerminal>()
    const clients = ['a', 'b']
    for (let attempt = 0; on.size < 2 && attempt < 24; attempt++) {
      const id = clients[on.size]!
      const t = await WsTerminal.connect(gateway, tokens.get(id)!, cert)
      const pid = tcpHolder(pids, gateway, (t.ws as unknown as { _socket: Socket })._socket.localPort!)
      if (pid !== null && !on.has(pid)) on.set(pid, t)
      else t.close()
    }
    expect(on.size).toBe(2)
    const [first, second] = [...on.values()] as [WsTerminal, WsTerminal]
    await first.event('session')
    await second.event('session')
    const frame = [0x51, 0x52, 0x53, 0x54]
    const timer = setInterval(() => first.sendAudio(uplink(frame)), 20)
    try {
      expect([...(await second.frames.next((f) => f.opus.length === frame.length, 10_000, 'a frame across the nodes')).opus]).toEqual(frame)
    } finally {
      clearInterval(timer)
    }

    // hark killed outright: its nodes see the IPC channel go and exit; NATS gets the kernel's SIGKILL.
    const closed = [...on.values()].map((t) => new Promise<void>((resolve) => t.ws.once('close', () => resolve())))
    expect(await hark.stop('SIGKILL')).toBe(null)
    await Promise.all(closed)
    const end = performance.now() + 5000
    while ([natsPid, ...pids].some(alive) && performance.now() < end) await new Promise((resolve) => setImmediate(resolve))
    expect([natsPid, ...pids].filter(alive)).toEqual([])
  }, 90_000)
})
