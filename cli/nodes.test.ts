/**
 * `hark start --nodes 2` as a user runs it (the built CLI, one data dir, every port 0): two engine
 * processes behind the same ports, in a cluster over the NATS server hark starts itself. A WSS, an
 * MQTT and a WebRTC terminal land on different processes (read from /proc) and talk in one room;
 * /metrics through the shared port carries every node's series; a REST PATCH through the shared port moves terminals wherever they are; kill -9 of a process:
 * its terminal reconnects and talks again within 5 s, and the process comes back; SIGTERM: exit
 * 0, no process left. Waits are on events; elapsed times are printed.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import type { Socket } from 'node:net'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { resolveSettings } from '../core/config.js'
import { openDataDir } from '../core/dataDir.js'
import { repoRoot, tempDir, uplink } from '../core/test/helpers.js'
import { connectDevice, type Device } from '../transports/mqtt/test/helpers.js'
import { WeriftTerminal } from '../transports/webrtc/test/weriftTerminal.js'
import { WsTerminal } from '../transports/webrtc/test/wsTerminal.js'
import { restCall } from '../cluster/test/processes.js'
import { killLeftovers, spawnHark, type HarkProcess } from './test/harkProcess.js'
import { alive, tcpHolder, udpHolder } from './test/socketOwner.js'

const dir = tempDir('hark-nodes-')
const data = join(dir.path, 'data')
let hark: HarkProcess
let ports: Record<string, number> = {}
/** The nodes' PIDs by node id, as the supervisor announced them (a restarted node replaces its entry). */
const pids = new Map<string, number>()
let natsPid = 0
let cert = ''
let apiKey = ''
const tokens = new Map<string, string>()
const open: Array<{ close(): unknown }> = []

/** A workspace with an API key and clients in room `lobby`, written into the data dir as the CLI would. */
const seed = async (clientIds: readonly string[]) => {
  const d = openDataDir(resolveSettings({ file: { source: 'test', settings: { dataDir: data } } }))
  try {
    const workspaceId = d.security.createWorkspace('nodes').workspaceId
    apiKey = d.security.apiKeys.create(workspaceId, 'test').apiKey
    const now = Date.now()
    for (const id of clientIds) {
      d.storage.transaction(() =>
        d.storage.clients.insert({
          workspaceId, clientId: id, name: null, kind: null, room: 'lobby', ephemeral: false,
          expiresAt: null, tokensNotBefore: now - 1000, createdAt: now, updatedAt: now,
        }),
      )
      tokens.set(id, (await d.security.tokens.issue(workspaceId, id, null)).token)
    }
  } finally {
    d.close()
  }
}

const NODES_LINE = /^hark: 2 nodes in a cluster over NATS at \S+ \(nats-server pid (\d+), started by hark\): (.*)$/

beforeAll(async () => {
  await seed(['ws1', 'mq1', 'rtc1', 'ws2'])
  hark = spawnHark([
    process.execPath, join(repoRoot, 'bin/hark.js'), 'start', '--nodes', '2', '--data', data,
    '--rest-port', '0', '--gateway-port', '0', '--mqtt-port', '0', '--console-port', '0',
    ...(process.env.HARK_NODES_TEST_LOG ? ['--log-level', 'debug'] : []),
  ])
  // Two engines and a NATS server starting on a shared 2-core machine: more than hark.running()'s 20 s may pass.
  const running = await hark.line(/^hark: running on /, 50_000)
  ports = Object.fromEntries([...running.matchAll(/(\w[\w-]*)=(\d+)/g)].map((m) => [m[1]!, Number(m[2])]))
  const line = await hark.line(NODES_LINE)
  const [, nats, list] = NODES_LINE.exec(line)!
  natsPid = Number(nats)
  for (const m of list!.matchAll(/(\S+) \(pid (\d+)\)/g)) pids.set(m[1]!, Number(m[2]))
  cert = readFileSync(join(data, 'tls-self-signed.crt'), 'utf8')
}, 60_000)

afterAll(async () => {
  // To look into a failure: HARK_NODES_TEST_LOG=<file> keeps what hark wrote.
  if (process.env.HARK_NODES_TEST_LOG) writeFileSync(process.env.HARK_NODES_TEST_LOG, hark.lines.items.join('\n'))
  // A WebRTC peer is dropped: its server may be gone, and no close handshake would come back.
  for (const t of open) await (t instanceof WeriftTerminal ? t.drop() : t.close())
  killLeftovers()
  dir.remove()
})

const nodePids = () => [...pids.values()]
const wsLocalPort = (t: WsTerminal) => (t.ws as unknown as { _socket: Socket })._socket.localPort!
const wsHolder = (t: WsTerminal) => tcpHolder(nodePids(), ports.gateway!, wsLocalPort(t))
const mqttHolder = (d: Device) => tcpHolder(nodePids(), ports.mqtt!, (d.client as unknown as { stream: Socket }).stream.localPort!)
/** The node holding the peer's server side: the UDP port of the host candidate in the answer. */
const rtcHolder = (t: WeriftTerminal) => {
  const port = /a=candidate:\S+ \d+ udp \d+ 127\.0\.0\.1 (\d+) typ host/i.exec(t.response.text)?.[1]
  return port === undefined ? null : udpHolder(nodePids(), Number(port))
}

/**
 * Connect until the terminal lands where `wanted` says (the kernel and the supervisor choose, not
 * the client); each miss is closed. A handful of tries: two processes share every port.
 */
const landing = async <T extends { close(): unknown }>(what: string, connect: () => Promise<T>, holder: (t: T) => number | null, wanted: (pid: number) => boolean) => {
  for (let attempt = 1; attempt <= 12; attempt++) {
    const t = await connect()
    const pid = holder(t)
    if (pid !== null && wanted(pid)) {
      open.push(t)
      return { t, pid }
    }
    await t.close()
  }
  throw new Error(`${what} never landed where wanted`)
}

const ws = (id: string) => () => WsTerminal.connect(ports.gateway!, tokens.get(id)!, cert)
const api = <T = unknown>(method: string, path: string, body?: unknown) => restCall<T>(ports.rest!, apiKey, method, path, body)
const since = (t0: number) => Math.round(performance.now() - t0)
const payload = (length: number, seed: number) => Uint8Array.from({ length }, (_, i) => (i * seed + 3) & 0xff)
/**
 * Talk as a terminal does, a frame every 20 ms, until `heard` resolves: a frame sent before the
 * listener's node has heard of the talker's membership (one NATS hop) is not relayed to it.
 */
const talkUntil = async <T>(heard: Promise<T>, talk: () => void): Promise<T> => {
  talk()
  const timer = setInterval(talk, 20)
  try {
    return await heard
  } finally {
    clearInterval(timer)
  }
}

let page: WsTerminal
let pagePid = 0
let device: Device
let devicePid = 0
let peer: WeriftTerminal

describe('hark start --nodes 2', () => {
  it('announces two nodes, each its own process, on the same ports', () => {
    expect(pids.size).toBe(2)
    expect(new Set(nodePids()).size).toBe(2)
    for (const pid of nodePids()) expect(alive(pid)).toBe(true)
    expect(alive(natsPid)).toBe(true)
    expect(Object.keys(ports)).toEqual(expect.arrayContaining(['rest', 'gateway', 'mqtt', 'console']))
  })

  it('a WSS, an MQTT and a WebRTC terminal on different processes talk in one room', async () => {
    ;({ t: page, pid: pagePid } = await landing('ws1', ws('ws1'), wsHolder, () => true))
    await page.event('session')
    ;({ t: device, pid: devicePid } = await landing(
      'mq1',
      async () => {
        const d = await connectDevice(ports.mqtt!, 'mq1', { password: tokens.get('mq1')! })
        return Object.assign(d, { close: () => d.end() })
      },
      mqttHolder,
      (pid) => pid !== pagePid,
    ))
    await device.event('session')
    ;({ t: peer } = await landing('rtc1', () => WeriftTerminal.connect(ports.gateway!, tokens.get('rtc1')!, cert), rtcHolder, (pid) => pid === devicePid))
    await peer.event('session')
    console.log(`nodes: ws1 on pid ${pagePid}, mq1 and rtc1 on pid ${devicePid}`)
    for (const id of ['mq1', 'rtc1']) await page.event('participant.joined', (e) => e.participant.id === id)

    const fromPage = payload(80, 7)
    page.sendAudio(uplink(fromPage, 0x80 | 21))
    page.sendAudio(uplink(fromPage, 0x80 | 21))
    expect([...(await device.audio.next((f) => f.length === 6 + 80, 5000, 'page->device')).subarray(6)]).toEqual([...fromPage])
    expect([...(await peer.packets.next((p) => p.payload.length === 80, 5000, 'page->peer')).payload]).toEqual([...fromPage])

    const fromDevice = payload(61, 11)
    device.publishAudio(uplink(fromDevice, 0x80 | 30))
    device.publishAudio(uplink(fromDevice, 0x80 | 30))
    expect([...(await page.frames.next((f) => f.opus.length === 61, 5000, 'device->page')).opus]).toEqual([...fromDevice])

    await peer.event('speaking.stopped', (e) => e.participantId === 'ws1')
    const fromPeer = payload(97, 5)
    await peer.sendOpus(fromPeer, 0x80 | 18)
    expect([...(await page.frames.next((f) => f.opus.length === 97, 5000, 'peer->page')).opus]).toEqual([...fromPeer])
  })

  it('/metrics through the shared port answers for the machine: every node\'s series, labelled with its node', async () => {
    // Scraped twice: the shared port hands each connection to a node in turn, and either answers the same.
    for (const _ of [1, 2]) {
      const text = await fetch(`http://127.0.0.1:${ports.rest}/metrics`, { headers: { connection: 'close' } }).then((r) => r.text())
      const sessions = text.split('\n').filter((l) => l.startsWith('hark_sessions{'))
      for (const id of pids.keys()) expect(sessions.some((l) => l.includes(`node="${id}"`))).toBe(true)
      // ws1 on one node, mq1 and rtc1 on the other: three sessions on the machine.
      expect(sessions.reduce((sum, l) => sum + Number(l.split(' ').pop()), 0)).toBe(3)
      expect(text).toMatch(/^hark_process_process_start_time_seconds\{node="/m)
      // Each node listens for relay links on a port of its own: a port shared by the nodes (a
      // cluster worker's listen(0)) handed a dial to either of them, and the wrong one refused its
      // key as a malformed stream (the audio then went over NATS).
      const malformed = text.split('\n').filter((l) => l.startsWith('hark_cluster_relay_frames_dropped_total{') && l.includes('reason="malformed"'))
      expect(malformed.reduce((sum, l) => sum + Number(l.split(' ').pop()), 0)).toBe(0)
    }
  })

  it('a REST PATCH through the shared port moves each terminal, whichever process it is on', async () => {
    for (const [id, terminal] of [['ws1', page], ['mq1', device]] as const) {
      const t0 = performance.now()
      expect((await api('PATCH', `/clients/${id}`, { room: 'hall' })).status).toBe(200)
      expect(await terminal.event('room.changed', (e) => e.to === 'hall')).toMatchObject({ from: 'lobby', to: 'hall' })
      console.log(`nodes: PATCH ${id} -> room.changed in ${since(t0)} ms`)
    }
    const fromDevice = payload(55, 13)
    const heard = page.frames.next((f) => f.opus.length === 55, 5000, 'device->page in hall')
    expect([...(await talkUntil(heard, () => device.publishAudio(uplink(fromDevice, 0x80 | 30)))).opus]).toEqual([...fromDevice])
    for (const [id, terminal] of [['ws1', page], ['mq1', device]] as const) {
      expect((await api('PATCH', `/clients/${id}`, { room: 'lobby' })).status).toBe(200)
      expect(await terminal.event('room.changed', (e) => e.to === 'lobby')).toMatchObject({ from: 'hall', to: 'lobby' })
    }
  })

  it('kill -9 of a process: its terminal reconnects through the same port and talks again within 5 s; the process is started again', async () => {
    const victim = [...pids].find(([, pid]) => pid === pagePid)![0]
    const closed = new Promise<void>((resolve) => page.ws.once('close', () => resolve()))
    const t0 = performance.now()
    process.kill(pagePid, 'SIGKILL')
    await closed
    // A terminal reconnects at once and again on failure: the first try may still reach the dying process.
    let back: WsTerminal | null = null
    while (back === null && since(t0) < 5000) back = await WsTerminal.connect(ports.gateway!, tokens.get('ws1')!, cert).catch(() => null)
    if (back === null) throw new Error('ws1 could not reconnect within 5 s')
    open.push(back)
    await back.event('session')
    const fromDevice = payload(47, 17)
    const heard = back.frames.next((f) => f.opus.length === 47, 5000, 'device->reconnected page')
    try {
      expect([...(await talkUntil(heard, () => device.publishAudio(uplink(fromDevice, 0x80 | 30)))).opus]).toEqual([...fromDevice])
    } catch (e) {
      throw new Error(`${(e as Error).message}; ws1 got ${JSON.stringify(back.events.items)}; mq1's last events ${JSON.stringify(device.events.items.slice(-6))}`)
    }
    const talkingAgain = since(t0)
    console.log(`nodes: kill -9 of ${victim} -> ws1 reconnected and heard mq1 in ${talkingAgain} ms`)
    expect(talkingAgain).toBeLessThan(5000)

    // The restart is an engine's start-up: 3–11 s seen on this 2-core machine at load 5–13.
    const again = await hark.line(new RegExp(`^hark: node ${victim} running again \\(pid (\\d+)\\)`), 45_000)
    const newPid = Number(/\(pid (\d+)\)/.exec(again)![1])
    console.log(`nodes: ${victim} running again as pid ${newPid}, ${since(t0)} ms after the kill`)
    expect(newPid).not.toBe(pagePid)
    expect(alive(pagePid)).toBe(false)
    pids.set(victim, newPid)
    // The restarted process serves terminals too: one that lands on it hears the device.
    const { t: late } = await landing('ws2', ws('ws2'), wsHolder, (pid) => pid === newPid)
    await late.event('session')
    const fromDevice2 = payload(44, 19)
    const heard2 = late.frames.next((f) => f.opus.length === 44, 5000, 'device->page on the restarted node')
    expect([...(await talkUntil(heard2, () => device.publishAudio(uplink(fromDevice2, 0x80 | 30)))).opus]).toEqual([...fromDevice2])
  }, 75_000)

  it('SIGTERM stops every node and the NATS server: exit 0, no process left', async () => {
    const before = [...nodePids(), natsPid]
    const t0 = performance.now()
    expect(await hark.stop('SIGTERM')).toBe(0)
    console.log(`nodes: SIGTERM -> exit 0 in ${since(t0)} ms`)
    expect(before.filter(alive)).toEqual([])
  })
})
