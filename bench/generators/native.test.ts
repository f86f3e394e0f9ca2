/**
 * The native generator against real servers on free loopback ports: it is built with gcc (a
 * missing gcc or libssl-dev fails here with the apt command, never a skip), then drives a real
 * Hark (`hark start`, seeded) over WSS and MQTT, the bare uWS peer and aedes. Every frame sent in
 * the window must be counted at each other member, with its bytes intact; a Node observer in the
 * same room (ws, mqtt.js) checks the bytes the generator put on the wire independently of the
 * generator's own accounting. Refusals come back as clear connect errors; a bad plan line as an
 * error line and exit status 2.
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import mqtt from 'mqtt'
import WebSocket from 'ws'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadTls } from '../../core/tls.js'
import { monotonicUs } from '../harness/clock.js'
import { planCores } from '../harness/cores.js'
import { seedHark, startHark, type HarkInstance, type HarkSeed } from '../harness/hark.js'
import { decodeHistogram } from '../harness/histogram.js'
import { benchModule } from '../harness/paths.js'
import { freePort } from '../harness/ports.js'
import { startWorker, type WorkerHandle } from '../harness/worker.js'
import { ProcessGroup } from '../harness/processes.js'
import { startPeer } from '../peers/start.js'
import { FRAME_MAGIC } from './frame.js'
import { explainBuildFailure, NATIVE_APT_COMMAND, nativeGeneratorBinary, startLines, startNativeGenerator, type NativeProtocol } from './native.js'
import type { RoomMember, RoomTarget } from './roomProtocol.js'
import type { RoomConnected, RoomGo, RoomResult, RoomStart } from './roomWorker.js'
import { mergeTimelines } from './timeline.js'

const FRAME_BYTES = 100
const LEVEL = 0x94

let dir = ''
let binary = ''
let seed: HarkSeed
let hark: HarkInstance
const procs = new ProcessGroup()
const ctx = () => ({
  procs,
  logFile: (name: string) => join(dir, `${name.replace(/\W+/g, '-')}.log`),
  phase: () => {},
  signal: new AbortController().signal,
  cores: planCores([0], false),
})

/** Set when the generator cannot be built: every test that needs it then fails with it (apt command included), none is skipped. */
let buildError: unknown = null
const built = () => {
  if (buildError) throw buildError
}

beforeAll(async () => {
  try {
    binary = await nativeGeneratorBinary()
  } catch (e) {
    buildError = e
    return
  }
  dir = mkdtempSync(join(tmpdir(), 'hark-native-'))
  seed = await seedHark(ctx(), { dataDir: join(dir, 'hark-data'), clients: 8, tokensPerClient: 1, roomSize: 4 })
  hark = await startHark(ctx(), { dataDir: seed.dataDir, cpus: null })
}, 120_000)

afterAll(async () => {
  await procs.stopAll()
  if (dir) rmSync(dir, { recursive: true, force: true })
})

const member = (i: number, talker: boolean, credential = true): RoomMember => ({
  index: i,
  clientId: seed.clients[i]!.clientId,
  room: seed.clients[i]!.room!,
  talker,
  credential: credential ? seed.clients[i]!.tokens[0]! : null,
})

/** Start, connect, talk for `talkMs` and collect the result of one native generator process. */
const drive = async (
  protocol: NativeProtocol,
  target: RoomTarget,
  members: RoomMember[],
  opts: { talkMs?: number; threads?: number } = {},
): Promise<{ connected: RoomConnected; result: RoomResult | null }> => {
  const gen = startNativeGenerator(procs, { name: `gen-${protocol}`, binary, protocol, cpus: null, logFile: ctx().logFile(`gen-${protocol}`) })
  const start: RoomStart = {
    type: 'start',
    protocol,
    target,
    members,
    frameBytes: FRAME_BYTES,
    framesPerSecond: 50,
    connectConcurrency: 4,
    connectTimeoutMs: 20_000,
    maxBacklogBytes: 64 * 1024,
    threads: opts.threads ?? 2,
  }
  gen.send(start)
  const connected = await gen.next<RoomConnected>('connected', 30_000)
  let result: RoomResult | null = null
  if (opts.talkMs) {
    const talkFromUs = monotonicUs() + 100_000
    const endUs = talkFromUs + opts.talkMs * 1000
    // The drain ends as soon as every expected frame arrived; 20 s is only its bound.
    gen.send({ type: 'go', talkFromUs, warmupUntilUs: talkFromUs, endUs, drainMs: 20_000 })
    result = await gen.next<RoomResult>('result', opts.talkMs + 40_000)
  }
  gen.send({ type: 'stop' })
  await gen.proc.exited
  return { connected, result }
}

/** What a Node observer saw of the generator's frames: every check is on the bytes themselves. */
class FrameCheck {
  frames = 0
  readonly problems: string[] = []
  private readonly lastSeq = new Map<number, number>()
  private readonly lastSource = new Map<number, number>()

  constructor(private readonly senders: readonly number[]) {}

  /** A downlink frame: [0x01][V|level][source u16][seq u16] + the bench frame. */
  downlink(d: Buffer): void {
    if (d.length !== 6 + FRAME_BYTES) return void this.problems.push(`downlink of ${d.length} bytes`)
    if (d[0] !== 0x01 || d[1] !== LEVEL) return void this.problems.push(`downlink header ${d.subarray(0, 2).toString('hex')}`)
    const source = d.readUInt16BE(2)
    const seq = d.readUInt16BE(4)
    const last = this.lastSource.get(source)
    if (last !== undefined && seq !== ((last + 1) & 0xffff)) this.problems.push(`source ${source}: seq ${seq} after ${last}`)
    this.lastSource.set(source, seq)
    this.frame(d.subarray(6))
  }

  frame(f: Buffer): void {
    this.frames++
    if (f.length !== FRAME_BYTES) return void this.problems.push(`frame of ${f.length} bytes`)
    if (f.readUInt32LE(0) !== FRAME_MAGIC) return void this.problems.push(`magic ${f.readUInt32LE(0).toString(16)}`)
    const sender = f.readUInt32LE(4)
    if (!this.senders.includes(sender)) this.problems.push(`sender ${sender}`)
    const seq = f.readUInt32LE(8)
    const last = this.lastSeq.get(sender)
    if (last !== undefined && seq <= last) this.problems.push(`sender ${sender}: seq ${seq} after ${last}`)
    this.lastSeq.set(sender, seq)
    const sentUs = f.readDoubleLE(12)
    const age = monotonicUs() - sentUs
    if (!(age >= 0 && age < 30e6)) this.problems.push(`send time ${sentUs} is ${age} µs old`)
    if (!f.subarray(20).every((b) => b === 0x5a)) this.problems.push(`filler of sender ${sender} altered`)
  }
}

const expectAllDelivered = (c: RoomConnected, r: RoomResult | null, talkers: number) => {
  expect(c.firstError).toBeNull()
  expect(c.failed).toBe(0)
  expect(decodeHistogram(c.histogram!).totalCount).toBe(c.ok)
  expect(r).not.toBeNull()
  expect(r!.talkers).toBe(talkers)
  expect(r!.sent).toBeGreaterThan(0)
  // A slot is scheduled by its due time and sent by its send time (as in the Node worker): a slot
  // due just inside an edge of the window may leave just outside it, at most one per talker per edge.
  expect(Math.abs(r!.scheduled - (r!.sent + r!.missedLate + r!.skippedBacklog))).toBeLessThanOrEqual(2 * talkers)
  expect(r!.expected).toBeGreaterThan(0)
  expect(r!.duplicate).toBe(0)
  expect(r!.received).toBe(r!.expected)
  expect(r!.foreign).toBe(0)
  expect(r!.corrupt).toBe(0)
  expect(r!.dropped).toBe(0)
  expect(decodeHistogram(r!.histogram).totalCount).toBe(r!.received)
  // Every member on the plan's port: all of it is home.
  expect(decodeHistogram(r!.histogramHome!).totalCount).toBe(r!.received)
  expect(decodeHistogram(r!.histogramAway!).totalCount).toBe(0)
}

describe('native generator', () => {
  it('tells which package to install when gcc cannot build it', () => {
    const missingHeader = "main.c:18:10: fatal error: openssl/ssl.h: No such file or directory\ncompilation terminated.\n"
    expect(explainBuildFailure(missingHeader)).toContain(`libssl-dev`)
    expect(explainBuildFailure(missingHeader)).toContain(NATIVE_APT_COMMAND)
    expect(explainBuildFailure('/usr/bin/ld: cannot find -lssl: No such file or directory')).toContain(NATIVE_APT_COMMAND)
    expect(NATIVE_APT_COMMAND).toBe('apt-get install -y gcc libssl-dev')
  })

  it('drives Hark over WSS: every frame counted at the other members, bytes checked by a Node terminal', async () => {
    built()
    // room 1: four native talkers; room 2: three native talkers and a `ws` observer (client 8).
    const observer = new WebSocket(`wss://127.0.0.1:${hark.ports.gateway}/v1/connect?token=${encodeURIComponent(seed.clients[7]!.tokens[0]!)}`, {
      rejectUnauthorized: false,
    })
    const check = new FrameCheck([4, 5, 6])
    await new Promise<void>((resolve, reject) => {
      observer.on('message', (data: Buffer, isBinary: boolean) => {
        if (isBinary) check.downlink(data)
        else if ((JSON.parse(data.toString()) as { type: string }).type === 'session') resolve()
      })
      observer.once('error', reject)
    })
    try {
      const members = [0, 1, 2, 3, 4, 5, 6].map((i) => member(i, true))
      const { connected, result } = await drive('hark-ws', { host: '127.0.0.1', port: hark.ports.gateway, options: {} }, members, { talkMs: 1000 })
      expect(connected.ok).toBe(7)
      expectAllDelivered(connected, result, 7)
      // room 1's frames are expected at 3 others, room 2's at the 2 other native members
      expect(result!.skippedBacklog).toBe(0)
      expect(result!.expected).toBeGreaterThan(2 * result!.sent)
      expect(result!.expected).toBeLessThan(3 * result!.sent)
      expect(check.problems).toEqual([])
      expect(check.frames).toBeGreaterThanOrEqual(3 * 10)
    } finally {
      observer.terminate()
    }
  }, 60_000)

  it('drives Hark over MQTT (device topics, session event, QoS 1 events acknowledged), bytes checked by mqtt.js', async () => {
    built()
    const observer = await mqtt.connectAsync(`mqtt://127.0.0.1:${hark.ports.mqtt}`, {
      protocolVersion: 4,
      clientId: seed.clients[7]!.clientId,
      username: seed.clients[7]!.clientId,
      password: seed.clients[7]!.tokens[0]!,
      reconnectPeriod: 0,
    })
    const check = new FrameCheck([4, 5, 6])
    observer.on('message', (topic, payload) => {
      if (topic.endsWith('/down/audio')) check.downlink(payload)
    })
    try {
      const members = [0, 1, 2, 3, 4, 5, 6].map((i) => member(i, true))
      const { connected, result } = await drive('raw-mqtt', { host: '127.0.0.1', port: hark.ports.mqtt, options: { scheme: 'hark' } }, members, {
        talkMs: 1000,
      })
      expect(connected.ok).toBe(7)
      expectAllDelivered(connected, result, 7)
      expect(check.problems).toEqual([])
      expect(check.frames).toBeGreaterThanOrEqual(3 * 10)
    } finally {
      await observer.endAsync(true)
    }
  }, 60_000)

  it('drives the bare uWS peer (ws-pubsub over TLS) and aedes (MQTT room topic, echoes ignored)', async () => {
    built()
    const tls = await loadTls({ certFile: null, keyFile: null, dataDir: dir, host: '127.0.0.1' })
    const uws = await startPeer(ctx(), { name: 'uws', module: 'peers/uwsFanout', args: ['--cert', tls.certFile, '--key', tls.keyFile] })
    const plain = (i: number, talker: boolean): RoomMember => ({ index: i, clientId: `t-${i}`, room: i < 3 ? 'a' : 'b', talker, credential: null })
    const members = [0, 1, 2, 3, 4].map((i) => plain(i, i !== 2))
    const ws = await drive('ws-pubsub', { host: '127.0.0.1', port: uws.port, options: { tls: true, path: '/v1/connect' } }, members, { talkMs: 600 })
    expect(ws.connected.ok).toBe(5)
    expectAllDelivered(ws.connected, ws.result, 4)
    const aedes = await startPeer(ctx(), { name: 'aedes', module: 'peers/aedesBroker' })
    const mq = await drive('raw-mqtt', { host: '127.0.0.1', port: aedes.port, options: { scheme: 'pubsub', topic: 'rooms/{room}' } }, members, {
      talkMs: 600,
    })
    expect(mq.connected.ok).toBe(5)
    expectAllDelivered(mq.connected, mq.result, 4)
  }, 60_000)

  it('reports the window bucket by bucket of send time when go asks for a timeline (native and Node generators alike)', async () => {
    built()
    const tls = await loadTls({ certFile: null, keyFile: null, dataDir: dir, host: '127.0.0.1' })
    const uws = await startPeer(ctx(), { name: 'uws-timeline', module: 'peers/uwsFanout', args: ['--cert', tls.certFile, '--key', tls.keyFile] })
    const target: RoomTarget = { host: '127.0.0.1', port: uws.port, options: { tls: true, path: '/v1/connect' } }
    const members = [0, 1, 2, 3].map((i): RoomMember => ({ index: i, clientId: `tl-${i}`, room: 'tl', talker: true, credential: null }))
    const gens: [string, WorkerHandle, string][] = [
      ['native', startNativeGenerator(procs, { name: 'gen-tl-native', binary, protocol: 'ws-pubsub', cpus: null, logFile: ctx().logFile('gen-tl-native') }), 'ws-pubsub'],
      ['node', startWorker(procs, { name: 'gen-tl-node', module: benchModule('generators/roomWorker'), cpus: null, logFile: ctx().logFile('gen-tl-node') }), benchModule('generators/protocols/wsPubSub')],
    ]
    for (const [kind, gen, protocol] of gens) {
      gen.send({ type: 'start', protocol, target, members, frameBytes: FRAME_BYTES, framesPerSecond: 50, connectConcurrency: 4, connectTimeoutMs: 20_000, maxBacklogBytes: 64 * 1024, threads: 1 } satisfies RoomStart)
      expect((await gen.next<RoomConnected>('connected', 30_000)).ok, kind).toBe(4)
      const talkFromUs = monotonicUs() + 100_000
      const warmupUntilUs = talkFromUs + 200_000
      const endUs = warmupUntilUs + 600_000
      // Buckets of 100 ms from the window's start: 6 of them.
      gen.send({ type: 'go', talkFromUs, warmupUntilUs, endUs, drainMs: 2000, timeline: { fromUs: warmupUntilUs, bucketMs: 100 } } satisfies RoomGo)
      const r = await gen.next<RoomResult>('result', 30_000)
      gen.send({ type: 'stop' })
      expect(r.timeline, kind).toBeDefined()
      const buckets = mergeTimelines([r.timeline!])
      expect(buckets.every((b) => b.index >= 0 && b.index < 6), kind).toBe(true)
      expect(buckets.length, kind).toBeGreaterThanOrEqual(5)
      const sum = (k: 'sent' | 'expected' | 'received' | 'skippedBacklog' | 'missedLate') => buckets.reduce((n, b) => n + b[k], 0)
      // The window's frames, all in some bucket: the timeline adds up to the totals.
      expect([sum('sent'), sum('expected'), sum('received'), sum('skippedBacklog'), sum('missedLate')], kind).toEqual([r.sent, r.expected, r.received, r.skippedBacklog, r.missedLate])
      expect(buckets.reduce((n, b) => n + b.histogram.totalCount, 0), kind).toBe(r.received)
      expect(r.received, kind).toBeGreaterThan(0)
    }
  }, 60_000)

  it('reports refusals as connect failures with the server\'s answer', async () => {
    built()
    const bad = { ...member(0, false), credential: 'not-a-token' }
    const ws = await drive('hark-ws', { host: '127.0.0.1', port: hark.ports.gateway, options: {} }, [bad, member(1, false)])
    expect(ws.connected.ok).toBe(1)
    expect(ws.connected.failed).toBe(1)
    expect(ws.connected.firstError).toMatch(/upgrade refused: HTTP 401 .*invalid_token/)
    const mq = await drive('raw-mqtt', { host: '127.0.0.1', port: hark.ports.mqtt, options: { scheme: 'hark' } }, [bad])
    expect(mq.connected.ok).toBe(0)
    expect(mq.connected.firstError).toMatch(/CONNACK return code 4/)
  }, 60_000)

  it('connects each member to its own port when it has one (a cluster: each terminal to its node)', async () => {
    built()
    // The plan's port has nothing listening: only members that name Hark's port get in.
    const closed = await freePort()
    const own = (i: number): RoomMember => ({ ...member(i, true), port: hark.ports.gateway })
    const members = [own(0), own(1), own(2), own(3), member(4, false)]
    const { connected, result } = await drive('hark-ws', { host: '127.0.0.1', port: closed, options: {} }, members, { talkMs: 600 })
    expect(connected.ok).toBe(4)
    expect(connected.failed).toBe(1)
    expect(connected.firstError).toMatch(/refused/i)
    // room 1 (members 0-3, all on Hark's port) talks as usual
    expect(result!.talkers).toBe(4)
    expect(result!.expected).toBeGreaterThan(0)
    expect(result!.received).toBe(result!.expected)
    // Their deliveries are the away half of the split (a cluster: on another node than the plan's).
    expect(decodeHistogram(result!.histogramAway!).totalCount).toBe(result!.received)
    expect(decodeHistogram(result!.histogramHome!).totalCount).toBe(0)
    expect(startLines('hark-ws', { target: { host: '127.0.0.1', port: closed, options: {} }, members: [own(0), member(1, false)] } as unknown as RoomStart)).toEqual(
      expect.arrayContaining([expect.stringMatching(new RegExp(` ${hark.ports.gateway}$`)), expect.stringMatching(/^member 1 0 \S+ \S+ \S+$/)]),
    )
  }, 60_000)

  it('answers a bad plan with an error line and exit status 2', async () => {
    built()
    const run = (input: string) =>
      new Promise<{ out: string; code: number | null }>((resolve) => {
        const p = spawn(binary, [], { stdio: ['pipe', 'pipe', 'ignore'] })
        let out = ''
        p.stdout.on('data', (d: Buffer) => (out += d.toString()))
        p.on('close', (code) => resolve({ out, code }))
        p.stdin.end(input)
      })
    const unknown = await run('set protocol carrier-pigeon\nstart\n')
    expect(unknown.code).toBe(2)
    expect(JSON.parse(unknown.out)).toEqual({ type: 'error', message: 'unknown protocol carrier-pigeon (hark-ws, ws-pubsub or raw-mqtt)' })
    const noMembers = await run('set protocol hark-ws\nset port 1\nstart\n')
    expect(JSON.parse(noMembers.out)).toMatchObject({ type: 'error', message: 'no members' })
    const garbage = await run('hello there\n')
    expect(JSON.parse(garbage.out)).toMatchObject({ type: 'error', message: 'unreadable line: hello there' })
    const badPort = await run('set port 99999\n')
    expect(JSON.parse(badPort.out)).toMatchObject({ type: 'error', message: 'bad value for port' })
    const badMemberPort = await run('member 0 1 r c - 0\n')
    expect(JSON.parse(badMemberPort.out)).toMatchObject({ type: 'error', message: 'bad member port in: member 0 1 r c - 0' })
    // and the runner never writes a plan it cannot read back
    expect(() => startLines('hark-ws', { target: { host: '127.0.0.1', port: 1, options: {} }, members: [{ ...member(0, true), room: 'a b' }] } as unknown as RoomStart)).toThrow(
      /room "a b" is empty or holds whitespace/,
    )
  })
})
