/**
 * Heap snapshots of a server under a connection load, for finding where memory per terminal goes
 * (summarise one with `node dist/bench/heapSummary.js FILE --per N`). Set
 * HARK_BENCH_HEAP_SNAPSHOT=DIR: Hark starts with `--heapsnapshot-signal=SIGUSR2
 * --diagnostic-dir=DIR`, and the idle loads (idle-memory, idle-mqtt) signal it once their window
 * has been measured, then wait until the snapshot is written (V8 collects garbage first).
 */
import { readdirSync, readSync, openSync, closeSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { delay } from './clock.js'

/** The directory asked for, or null when no snapshot is wanted. */
export const heapSnapshotDir = (): string | null => process.env.HARK_BENCH_HEAP_SNAPSHOT || null

/** Node flags that make a process write a snapshot to `dir` on SIGUSR2. */
export const heapSnapshotArgs = (dir: string): string[] => ['--heapsnapshot-signal=SIGUSR2', `--diagnostic-dir=${dir}`]

const snapshots = (dir: string, pid: number): string[] =>
  readdirSync(dir).filter((f) => f.endsWith('.heapsnapshot') && f.includes(`.${pid}.`))

/** The last byte of a file (a complete snapshot is a JSON object: it ends with `}`). */
const lastByte = (file: string): number => {
  const size = statSync(file).size
  if (size === 0) return -1
  const fd = openSync(file, 'r')
  try {
    const b = Buffer.alloc(1)
    readSync(fd, b, 0, 1, size - 1)
    return b[0]!
  } finally {
    closeSync(fd)
  }
}

/**
 * Signal `pid` to write a snapshot into `dir` and wait (bounded) until the new file is complete:
 * it ends with `}` and its size held still over two looks. Returns its path.
 */
export const takeHeapSnapshot = async (pid: number, dir: string, timeoutMs = 300_000, signal?: AbortSignal): Promise<string> => {
  const before = new Set(snapshots(dir, pid))
  process.kill(pid, 'SIGUSR2')
  const deadline = Date.now() + timeoutMs
  let lastSize = -1
  for (let i = 0; i < Math.ceil(timeoutMs / 500) && Date.now() < deadline && !signal?.aborted; i++) {
    await delay(500, signal)
    const file = snapshots(dir, pid).find((f) => !before.has(f))
    if (!file) continue
    const path = join(dir, file)
    const size = statSync(path).size
    if (size > 0 && size === lastSize && lastByte(path) === 0x7d) return path
    lastSize = size
  }
  throw new Error(`no complete heap snapshot from ${pid} in ${dir} within ${timeoutMs} ms`)
}
