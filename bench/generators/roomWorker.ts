/**
 * One room load generator process. It connects its share of terminals (whole rooms) through a
 * protocol hook, has the talkers send a bench frame every 1/fps s from `go`, records the latency
 * of every frame received in the measured window, and reports counts and the histogram.
 * Started and driven by generators/rooms.ts over IPC: start → connected, go → result, stop.
 */
import { pathToFileURL } from 'node:url'
import { monotonicUs, until } from '../harness/clock.js'
import { createLatencyHistogram, encodeHistogram, recordUs } from '../harness/histogram.js'
import { serveWorker, type WorkerMessage } from '../harness/worker.js'
import { encodeFrame, frameSender, frameSentUs, frameTemplate, isFrame } from './frame.js'
import { TimelineRecorder, type TimelineBucket, type TimelineSpec } from './timeline.js'
import type { RoomConnection, RoomMember, RoomProtocol, RoomTarget } from './roomProtocol.js'

export interface RoomStart extends WorkerMessage {
  readonly type: 'start'
  /** Absolute path of the compiled protocol module. */
  readonly protocol: string
  readonly target: RoomTarget
  readonly members: readonly RoomMember[]
  readonly frameBytes: number
  readonly framesPerSecond: number
  readonly connectConcurrency: number
  /** Connects started per second (open loop, at most `connectConcurrency` in flight); 0 or absent: as lanes free up. */
  readonly connectRate?: number
  readonly connectTimeoutMs: number
  /** Threads of a native generator process (the Node worker has one). */
  readonly threads?: number
  /** A talker skips a frame (counted, and expected all the same) while its connection queues more. */
  readonly maxBacklogBytes: number
}

export interface RoomConnected extends WorkerMessage {
  readonly type: 'connected'
  readonly ok: number
  readonly failed: number
  readonly connectMs: number
  readonly firstError: string | null
  /** Time from opening each connection to its terminal being in its room (HDR histogram, µs). */
  readonly histogram?: string
  /** With a connect rate: connects started more than 50 ms after their slot (the generator's fault). */
  readonly lateStarts?: number
  readonly threads?: number
}

export interface RoomGo extends WorkerMessage {
  readonly type: 'go'
  readonly talkFromUs: number
  readonly warmupUntilUs: number
  readonly endUs: number
  readonly drainMs: number
  /** Also report the window bucket by bucket of send time (generators/timeline.ts). */
  readonly timeline?: TimelineSpec
}

export interface RoomResult extends WorkerMessage {
  readonly type: 'result'
  readonly talkers: number
  readonly receivers: number
  /** Frame slots due in the window. */
  readonly scheduled: number
  /** Frames sent in the window. */
  readonly sent: number
  /** Slots skipped because the generator ran late (its own fault). */
  readonly missedLate: number
  /** Frames skipped because the connection's send queue was full (the server's fault). */
  readonly skippedBacklog: number
  /** Deliveries expected for the frames sent or skipped in the window. */
  readonly expected: number
  /** Deliveries seen, of frames sent in the window. */
  readonly received: number
  /** Messages that were not bench frames. */
  readonly foreign: number
  /** Bench frames of the window whose bytes were not those sent (native generator). */
  readonly corrupt?: number
  /** Connections lost after they were ready (native generator). */
  readonly dropped?: number
  /** Frames of the window that came again or out of order on a connection, not counted as received (native generator). */
  readonly duplicate?: number
  readonly histogram: string
  /**
   * The same deliveries split by where the receiver is connected (native generator): to terminals
   * on the target's port (home) and on a port of their own (away: in a cluster, another node).
   */
  readonly histogramHome?: string
  readonly histogramAway?: string
  /** With `go.timeline`: the window's frames per bucket of send time (buckets where something happened). */
  readonly timeline?: readonly TimelineBucket[]
}

interface Talker {
  readonly sender: number
  readonly conn: RoomConnection
  fanout: number
  nextDueUs: number
  seq: number
}

const connections: RoomConnection[] = []
const closeAll = () => {
  for (const c of connections.splice(0)) {
    try {
      c.close()
    } catch {
      // closing is best effort at the end of a run
    }
  }
}

let start: RoomStart | null = null
const talkers: Talker[] = []
const roomSize = new Map<string, number>()
let window = { from: Infinity, to: -Infinity }
const histogram = createLatencyHistogram()
let received = 0
let foreign = 0
let timeline: TimelineRecorder | null = null

const onFrameFor = (self: number | null) => (frame: Buffer) => {
  if (!isFrame(frame)) {
    foreign++
    return
  }
  if (frameSender(frame) === self) return // a broker's echo of our own frame
  const sentUs = frameSentUs(frame)
  if (sentUs < window.from || sentUs >= window.to) return
  received++
  const latencyUs = monotonicUs() - sentUs
  recordUs(histogram, latencyUs)
  timeline?.received(sentUs, latencyUs)
}

/** Connects started more than this late count against the generator (open-loop connects). */
const LATE_START_US = 50_000

const connectAll = async (s: RoomStart, protocol: RoomProtocol): Promise<RoomConnected> => {
  const t0 = monotonicUs()
  const deadline = Date.now() + s.connectTimeoutMs
  const connectTimes = createLatencyHistogram()
  const rate = s.connectRate ?? 0
  let next = 0
  let failed = 0
  let lateStarts = 0
  let firstError: string | null = null
  const one = async (m: RoomMember) => {
    let timer: NodeJS.Timeout | undefined
    const startedUs = monotonicUs()
    try {
      const conn = await Promise.race([
        protocol.connect(m, m.port === undefined ? s.target : { ...s.target, port: m.port }, onFrameFor(m.talker ? m.index : null)),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error('connect timed out')), Math.max(1, deadline - Date.now()))
        }),
      ])
      connections.push(conn)
      recordUs(connectTimes, monotonicUs() - startedUs)
      roomSize.set(m.room, (roomSize.get(m.room) ?? 0) + 1)
      if (m.talker) talkers.push({ sender: m.index, conn, fanout: 0, nextDueUs: 0, seq: 0 })
    } catch (e) {
      failed++
      firstError ??= e instanceof Error ? e.message : String(e)
    } finally {
      clearTimeout(timer)
    }
  }
  const lane = async () => {
    while (next < s.members.length && Date.now() < deadline) {
      const i = next++
      if (rate > 0) {
        const dueUs = t0 + (i / rate) * 1e6
        await until(dueUs)
        if (monotonicUs() - dueUs > LATE_START_US) lateStarts++
      }
      await one(s.members[i]!)
    }
  }
  await Promise.all(Array.from({ length: Math.max(1, s.connectConcurrency) }, lane))
  failed += s.members.length - next
  // Each frame is expected at every other connected member of the talker's room.
  const byIndex = new Map(s.members.map((m) => [m.index, m.room]))
  for (const t of talkers) t.fanout = Math.max(0, (roomSize.get(byIndex.get(t.sender)!) ?? 1) - 1)
  return {
    type: 'connected',
    ok: connections.length,
    failed,
    connectMs: (monotonicUs() - t0) / 1000,
    firstError,
    histogram: encodeHistogram(connectTimes),
    lateStarts,
    threads: 1,
  }
}

const talk = async (s: RoomStart, g: RoomGo): Promise<RoomResult> => {
  const periodUs = 1e6 / s.framesPerSecond
  const template = frameTemplate(s.frameBytes)
  window = { from: g.warmupUntilUs, to: g.endUs }
  timeline = g.timeline && g.timeline.bucketMs > 0 ? new TimelineRecorder(g.timeline, g.endUs) : null
  const slot = (us: number) => timeline?.at(us) ?? null
  // Spread the talkers evenly over one period so their frames do not leave in bursts.
  talkers.forEach((t, i) => (t.nextDueUs = g.talkFromUs + (i / Math.max(1, talkers.length)) * periodUs))
  let scheduled = 0
  let sent = 0
  let missedLate = 0
  let skippedBacklog = 0
  let expected = 0
  const inWindow = (us: number) => us >= g.warmupUntilUs && us < g.endUs
  await until(g.talkFromUs)
  await new Promise<void>((resolve) => {
    const tick = () => {
      const now = monotonicUs()
      let pending = false
      for (const t of talkers) {
        if (t.nextDueUs >= g.endUs) continue
        pending = true
        if (t.nextDueUs > now) continue
        // More than two periods late: the generator fell behind; skip the slots it missed.
        const late = Math.floor((now - t.nextDueUs) / periodUs)
        if (late >= 2) {
          for (let k = 0; k < late; k++) {
            const due = t.nextDueUs + k * periodUs
            if (inWindow(due)) {
              missedLate++
              scheduled++
              const b = slot(due)
              if (b) b.missedLate++
            }
          }
          t.nextDueUs += late * periodUs
          t.seq += late
        }
        const win = inWindow(t.nextDueUs)
        if (win) scheduled++
        if (t.conn.backlog() > s.maxBacklogBytes) {
          if (win) {
            skippedBacklog++
            expected += t.fanout
            const b = slot(t.nextDueUs)
            if (b) {
              b.skippedBacklog++
              b.expected += t.fanout
            }
          }
        } else {
          const sentUs = monotonicUs()
          t.conn.send(encodeFrame(template, t.sender, t.seq, sentUs))
          if (inWindow(sentUs)) {
            sent++
            expected += t.fanout
            const b = slot(sentUs)
            if (b) {
              b.sent++
              b.expected += t.fanout
            }
          }
        }
        t.seq++
        t.nextDueUs += periodUs
      }
      if (pending) setTimeout(tick, 1)
      else resolve()
    }
    tick()
  })
  // Let frames of the window still in flight arrive (bounded).
  await until(g.endUs + g.drainMs * 1000)
  return {
    type: 'result',
    talkers: talkers.length,
    receivers: connections.length,
    scheduled,
    sent,
    missedLate,
    skippedBacklog,
    expected,
    received,
    foreign,
    histogram: encodeHistogram(histogram),
    ...(timeline ? { timeline: timeline.encode() } : {}),
  }
}

serveWorker({
  deadlineMs: 30 * 60_000,
  onStop: closeAll,
  onMessage: async (m, send) => {
    if (m.type === 'start') {
      start = m as RoomStart
      const mod = (await import(pathToFileURL(start.protocol).href)) as { default: RoomProtocol }
      send(await connectAll(start, mod.default))
    } else if (m.type === 'go') {
      if (!start) throw new Error('go before start')
      send(await talk(start, m as RoomGo))
    } else if (m.type === 'stop') {
      closeAll()
      process.exit(0)
    }
  },
})
