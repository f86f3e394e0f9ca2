/**
 * The native load generator (bench/native/*.c, C with OpenSSL and epoll, one thread per
 * generator core) as the runner sees it: built with gcc on first use into bench/native/build/,
 * keyed by the hash of its sources and flags, and driven like a room worker — the same `start`,
 * `go` and `stop` messages, the same `connected` and `result` answers — over lines on its stdin
 * and JSON lines on its stdout instead of Node IPC. Its latency buckets have hdr-histogram-js's
 * layout and become an HDR histogram here, so the runner merges them like any other. Only it
 * speaks the reconnect phase (`reconnect` → `watching`, `exited`, `listening` → `reconnected`:
 * generators/reconnect.ts).
 */
import { execFile } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { createLatencyHistogram, encodeHistogram } from '../harness/histogram.js'
import { repoRoot } from '../harness/paths.js'
import type { ProcessGroup } from '../harness/processes.js'
import { WorkerHandle, type MessageChannel, type WorkerMessage } from '../harness/worker.js'
import type { RoomConnected, RoomGo, RoomResult, RoomStart } from './roomWorker.js'
import type { TimelineBucket } from './timeline.js'

/** Wire formats the native generator speaks (the Node hooks of the same names: protocols/*.ts). */
export type NativeProtocol = 'hark-ws' | 'ws-pubsub' | 'raw-mqtt'

export const nativeSourceDir = join(repoRoot, 'bench', 'native')
export const nativeBuildDir = join(nativeSourceDir, 'build')

const CFLAGS = ['-O2', '-g', '-Wall', '-Wextra', '-pthread']
const LIBS = ['-lssl', '-lcrypto']

/** The exact command that installs what the build needs on Debian. */
export const NATIVE_APT_COMMAND = 'apt-get install -y gcc libssl-dev'

export class NativeBuildError extends Error {}

const sources = (): string[] =>
  readdirSync(nativeSourceDir)
    .filter((f) => f.endsWith('.c') || f.endsWith('.h'))
    .sort()

/** Hash of the sources and flags: a changed source builds a new binary, an unchanged one never rebuilds. */
export const nativeSourceHash = (): string => {
  const h = createHash('sha256')
  h.update([...CFLAGS, ...LIBS].join(' '))
  for (const f of sources()) h.update(`\0${f}\0`).update(readFileSync(join(nativeSourceDir, f)))
  return h.digest('hex').slice(0, 16)
}

const run = (command: string, args: readonly string[]) =>
  new Promise<{ code: number | null; stderr: string; missing: boolean }>((resolve) => {
    execFile(command, args, { cwd: nativeSourceDir, maxBuffer: 4 << 20 }, (error, _stdout, stderr) => {
      const missing = (error as NodeJS.ErrnoException | null)?.code === 'ENOENT'
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stderr: String(stderr), missing })
    })
  })

/** Why gcc failed, in one line naming the package to install when that is the cause. */
export const explainBuildFailure = (stderr: string): string => {
  if (/openssl\/\w+\.h: No such file/.test(stderr) || /cannot find -l(ssl|crypto)/.test(stderr)) {
    return `native generator: the OpenSSL development files are missing (package libssl-dev); install them with: ${NATIVE_APT_COMMAND} (or pass --generator node)`
  }
  const first = stderr.split('\n').filter((l) => /error/i.test(l)).slice(0, 3).join(' | ')
  return `native generator: gcc could not build bench/native: ${first || stderr.trim().slice(0, 300)}`
}

let building: Promise<string> | null = null

/**
 * Path of the native generator binary, built with gcc first when this source hash has none yet
 * (bench/native/build/hbgen-<hash>, git-ignored). Throws a NativeBuildError naming the missing
 * package (gcc, libssl-dev) when it cannot be built.
 */
export const nativeGeneratorBinary = (): Promise<string> => {
  building ??= (async () => {
    const binary = join(nativeBuildDir, `hbgen-${nativeSourceHash()}`)
    if (existsSync(binary)) return binary
    mkdirSync(nativeBuildDir, { recursive: true })
    // Built under a name of its own, then renamed: concurrent builds never see half a binary.
    const tmp = `${binary}.${process.pid}.tmp`
    const cFiles = sources().filter((f) => f.endsWith('.c'))
    const r = await run('gcc', [...CFLAGS, '-o', tmp, ...cFiles, ...LIBS])
    if (r.missing) {
      throw new NativeBuildError(`native generator: gcc is not installed; install it with: ${NATIVE_APT_COMMAND} (or pass --generator node)`)
    }
    if (r.code !== 0) {
      rmSync(tmp, { force: true })
      throw new NativeBuildError(explainBuildFailure(r.stderr))
    }
    renameSync(tmp, binary)
    // Binaries of older sources are never used again (a running one keeps its inode).
    for (const f of readdirSync(nativeBuildDir)) {
      if (f.startsWith('hbgen-') && !f.endsWith('.tmp') && join(nativeBuildDir, f) !== binary) rmSync(join(nativeBuildDir, f), { force: true })
    }
    return binary
  })()
  // A failed build is tried again next time (the packages may have been installed since).
  building.catch(() => (building = null))
  return building
}

const word = (what: string, v: string): string => {
  if (v.length === 0 || /\s/.test(v)) throw new Error(`native generator: ${what} "${v}" is empty or holds whitespace`)
  return v
}

/** The plan lines of a `start` message (see bench/native/main.c). */
export const startLines = (native: NativeProtocol, s: RoomStart): string[] => {
  const o = s.target.options
  const lines = [
    `set protocol ${native}`,
    `set host ${word('host', s.target.host)}`,
    `set port ${s.target.port}`,
    `set frameBytes ${s.frameBytes}`,
    `set fps ${s.framesPerSecond}`,
    `set concurrency ${Math.max(1, s.connectConcurrency)}`,
    `set connectRate ${s.connectRate ?? 0}`,
    `set connectTimeoutMs ${Math.max(1, Math.round(s.connectTimeoutMs))}`,
    `set maxBacklogBytes ${s.maxBacklogBytes}`,
    `set threads ${Math.max(1, s.threads ?? 1)}`,
  ]
  if (native === 'raw-mqtt') {
    lines.push(`set scheme ${o.scheme === 'hark' ? 'hark' : 'pubsub'}`, `set topic ${word('topic', String(o.topic ?? 'rooms/{room}'))}`)
  } else {
    lines.push(`set path ${word('path', String(o.path ?? '/v1/connect'))}`, `set tls ${native === 'hark-ws' || o.tls !== false ? 1 : 0}`)
  }
  for (const m of s.members) {
    lines.push(
      `member ${m.index} ${m.talker ? 1 : 0} ${word('room', m.room)} ${word('clientId', m.clientId)} ${m.credential === null ? '-' : word('credential', m.credential)}` +
        (m.port === undefined ? '' : ` ${m.port}`),
    )
  }
  lines.push('start')
  return lines
}

/** The `reconnect` line of a RoomReconnect (see bench/native/main.c); bad values throw. */
export const reconnectLine = (r: Pick<RoomReconnect, 'firstMs' | 'maxMs' | 'attemptMs' | 'deadlineMs'>): string => {
  const ok = (v: number, min: number) => Number.isFinite(v) && v >= min
  if (!ok(r.firstMs, 0) || !ok(r.maxMs, r.firstMs) || !ok(r.attemptMs, 1) || !ok(r.deadlineMs, 1)) {
    throw new Error(`reconnect: need 0 ≤ firstMs ≤ maxMs, attemptMs ≥ 1 and deadlineMs ≥ 1 (got ${JSON.stringify(r)})`)
  }
  return `reconnect ${r.firstMs} ${r.maxMs} ${r.attemptMs} ${r.deadlineMs}\n`
}

/** [value µs, count] pairs in hdr-histogram-js's bucket layout → an encoded HDR histogram. */
export const bucketsToHistogram = (buckets: readonly (readonly [number, number])[]): string => {
  const h = createLatencyHistogram()
  for (const [value, count] of buckets) h.recordValueWithCount(value, count)
  return encodeHistogram(h)
}

/** Instead of `go`: watch the terminals lose their server and come back on their own backoff. */
export interface RoomReconnect extends WorkerMessage {
  readonly type: 'reconnect'
  /** The first attempt after a drop waits a random delay in [0, firstMs]. */
  readonly firstMs: number
  /** Each failed attempt doubles the bound, up to this (full jitter). */
  readonly maxMs: number
  /** An attempt not in its room after this long is given up (and counts as failed). */
  readonly attemptMs: number
  /** The phase ends after this long, whoever is back. */
  readonly deadlineMs: number
}

/** After `reconnect`: the instant (monotonic µs) the old server exited; attempts started before it do not tell that the new one listens. */
export interface RoomExited extends WorkerMessage {
  readonly type: 'exited'
  readonly exitedUs: number
}

/** After `exited`: the instant (monotonic µs) the runner saw the new server listen. */
export interface RoomListening extends WorkerMessage {
  readonly type: 'listening'
  readonly listenUs: number
}

/** The reconnect phase's figures (bench/native/main.c, print_reconnected). */
export interface RoomReconnected extends WorkerMessage {
  readonly type: 'reconnected'
  /** Terminals that were in their rooms when the phase began. */
  readonly terminals: number
  /** Of those, back in their rooms at its end. */
  readonly back: number
  readonly drops: number
  readonly attempts: number
  /** Attempts refused at TCP (nobody listening yet). */
  readonly refused: number
  /** Attempts that failed otherwise (TLS, upgrade, CONNACK, session, timeout): the server's failures. */
  readonly attemptFailures: number
  /** Of those, attempts given up after `attemptMs`. */
  readonly timeouts: number
  /** Of those, connections reset by the server (e.g. its accept queue overflowed, or it closed with data unread). */
  readonly resets: number
  /** Of those, connections the server closed without a word. */
  readonly closes: number
  /** Of those, attempts the server answered with a no (HTTP status, CONNACK code, WebSocket close code). */
  readonly rejections: number
  /** The instant the new server listened: the runner's, or the first TCP connect a terminal made to it when earlier. */
  readonly listenUs: number
  /** The first TCP connect established by an attempt started after `exited` (0: none). */
  readonly firstConnectUs: number
  readonly firstDropUs: number
  readonly lastDropUs: number
  readonly firstBackUs: number
  readonly lastBackUs: number
  readonly firstError: string | null
  /** Each terminal's time back after this generator's `listenUs`. */
  readonly histogram: string
}

interface NativeConnected extends WorkerMessage {
  readonly ok: number
  readonly failed: number
  readonly connectMs: number
  readonly firstError: string | null
  readonly lateStarts: number
  readonly threads: number
  readonly buckets: [number, number][]
}

interface NativeResult extends WorkerMessage {
  readonly buckets: [number, number][]
  /** The same deliveries, to terminals on the plan's port (home) and on a port of their own (away). */
  readonly bucketsHome: [number, number][]
  readonly bucketsAway: [number, number][]
  /** With a bucket width on `go`: per bucket of send time, its latency as buckets like the others. */
  readonly timeline?: (Omit<TimelineBucket, 'histogram'> & { readonly buckets: [number, number][] })[]
}

/** Lines on the child's stdin and JSON lines from its stdout, as room-worker messages. */
const lineChannel = (proc: WorkerHandle['proc'], native: NativeProtocol): MessageChannel => {
  const stdout = proc.child.stdout!
  const lines = createInterface({ input: stdout })
  const closed = new Promise<void>((resolve) => lines.once('close', resolve))
  const write = (text: string) => {
    const stdin = proc.child.stdin
    if (stdin && !stdin.destroyed && !proc.hasExited) stdin.write(text)
  }
  return {
    closed,
    onMessage: (listener) => {
      lines.on('line', (line) => {
        if (!line.trim()) return
        let m: WorkerMessage
        try {
          m = JSON.parse(line) as WorkerMessage
        } catch {
          listener({ type: 'error', message: `native generator printed something else than JSON: ${line.slice(0, 200)}` })
          return
        }
        if (m.type === 'connected') {
          const c = m as NativeConnected
          const out: RoomConnected = {
            type: 'connected',
            ok: c.ok,
            failed: c.failed,
            connectMs: c.connectMs,
            firstError: c.firstError,
            lateStarts: c.lateStarts,
            threads: c.threads,
            histogram: bucketsToHistogram(c.buckets),
          }
          listener(out)
        } else if (m.type === 'reconnected') {
          const { buckets, ...rest } = m as WorkerMessage & { buckets: [number, number][] }
          listener({ ...(rest as unknown as RoomReconnected), histogram: bucketsToHistogram(buckets) })
        } else if (m.type === 'result') {
          const { buckets, bucketsHome, bucketsAway, timeline, ...rest } = m as NativeResult
          listener({
            ...(rest as unknown as RoomResult),
            histogram: bucketsToHistogram(buckets),
            histogramHome: bucketsToHistogram(bucketsHome),
            histogramAway: bucketsToHistogram(bucketsAway),
            ...(timeline ? { timeline: timeline.map(({ buckets: b, ...counts }) => ({ ...counts, histogram: bucketsToHistogram(b) })) } : {}),
          })
        } else listener(m)
      })
    },
    send: (message) => {
      if (message.type === 'start') write(startLines(native, message as RoomStart).join('\n') + '\n')
      else if (message.type === 'go') {
        const g = message as RoomGo
        const tl = g.timeline && g.timeline.bucketMs > 0 ? ` ${g.timeline.bucketMs} ${g.timeline.fromUs}` : ''
        write(`go ${g.talkFromUs} ${g.warmupUntilUs} ${g.endUs} ${g.drainMs}${tl}\n`)
      } else if (message.type === 'reconnect') write(reconnectLine(message as RoomReconnect))
      else if (message.type === 'exited') write(`exited ${(message as RoomExited).exitedUs.toFixed(1)}\n`)
      else if (message.type === 'listening') write(`listening ${(message as RoomListening).listenUs.toFixed(1)}\n`)
      else if (message.type === 'stop') {
        write('stop\n')
        proc.child.stdin?.end()
      }
    },
  }
}

/** Start one native generator process in `group`, driven like a room worker. */
export const startNativeGenerator = (
  group: ProcessGroup,
  spec: { name: string; binary: string; protocol: NativeProtocol; cpus: readonly number[] | null; logFile?: string },
): WorkerHandle => {
  const proc = group.spawn({
    name: spec.name,
    command: spec.binary,
    cpus: spec.cpus,
    pipeStdin: true,
    captureStdout: true,
    ...(spec.logFile ? { logFile: spec.logFile } : {}),
  })
  // The runner may stop it at any time: a closed pipe is not an error worth a crash.
  proc.child.stdin?.on('error', () => {})
  return new WorkerHandle(proc, lineChannel(proc, spec.protocol))
}
