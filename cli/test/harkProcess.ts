/**
 * `hark …` as a real process for tests: its output read line by line into an inbox, its exit
 * code as a promise, and stopping it by PID. With `tty: true` it runs on a pseudo-terminal
 * (util-linux `script`), so stdout and stderr are a TTY as in an operator's shell.
 */
import { spawn } from 'node:child_process'
import { createInterface } from 'node:readline'
import type { Readable } from 'node:stream'
import { cliEnv, Inbox } from '../../core/test/helpers.js'

export interface HarkProcessOptions {
  readonly env?: Record<string, string>
  readonly cwd?: string
  /** Run on a pseudo-terminal: stdout and stderr are one TTY (lines come back with it). */
  readonly tty?: boolean
}

export interface HarkProcess {
  /** Every line written to stdout or stderr, in order of arrival. */
  readonly lines: Inbox<string>
  /** hark's own PID (not `script`'s with `tty`). */
  readonly pid: Promise<number>
  /** The exit code (null when a signal killed it). */
  readonly exited: Promise<number | null>
  /** The first line matching `pattern`, failing if the process exits first. */
  line(pattern: RegExp, timeoutMs?: number): Promise<string>
  /** The ports of "hark: running on … (rest=… gateway=… mqtt=…)". */
  running(): Promise<Record<string, number>>
  /** Signal hark itself (by its PID) and wait for its exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>
}

/** Processes started and not yet exited, for killLeftovers. */
const live = new Set<() => void>()

/** Kill (SIGKILL, by PID) every hark a failed test left running; call it in afterEach. */
export const killLeftovers = () => {
  for (const kill of [...live]) kill()
}

const shellQuote = (arg: string) => `'${arg.replaceAll("'", `'\\''`)}'`

/** Start `argv` (executable first). */
export const spawnHark = (argv: readonly string[], options: HarkProcessOptions = {}): HarkProcess => {
  const [file, ...args] = argv as [string, ...string[]]
  const env = cliEnv(options.env)
  const lines = new Inbox<string>()
  const read = (stream: Readable) => createInterface({ input: stream }).on('line', (l) => lines.push(l.replace(/\r$/, '')))
  let pid: Promise<number>
  const child = options.tty
    ? // The shell tells hark's own PID, so that a signal reaches hark and not `script`.
      spawn('script', ['-qec', `${argv.map(shellQuote).join(' ')} & echo "hark-pid=$!"; wait $!`, '/dev/null'], {
        cwd: options.cwd, env, stdio: ['pipe', 'pipe', 'pipe'],
      })
    : spawn(file, args, { cwd: options.cwd, env, stdio: ['ignore', 'pipe', 'pipe'] })
  read(child.stdout!)
  read(child.stderr!)
  if (options.tty) {
    pid = lines.next((l) => /^hark-pid=\d+$/.test(l), 10_000, 'the PID of hark').then((l) => Number(l.split('=')[1]))
    pid.catch(() => {})
  } else {
    pid = Promise.resolve(child.pid!)
  }
  let harkPid: number | undefined
  void pid.then((p) => (harkPid = p))
  const kill = () => {
    for (const p of [harkPid, child.pid]) {
      try {
        if (p !== undefined) process.kill(p, 'SIGKILL')
      } catch {
        // already gone
      }
    }
  }
  live.add(kill)
  const exited = new Promise<number | null>((resolve, reject) => {
    child.on('error', reject)
    child.on('close', (code) => {
      live.delete(kill)
      resolve(code)
    })
  })
  const line = (pattern: RegExp, timeoutMs = 20_000) =>
    Promise.race([
      lines.next((l) => pattern.test(l), timeoutMs, `a line matching ${pattern}`),
      exited.then((code) => {
        // Output may still be arriving after the exit code: look once more before failing.
        const seen = lines.items.find((l) => pattern.test(l))
        if (seen !== undefined) return seen
        throw new Error(`hark exited (${code}) before a line matching ${pattern}:\n${lines.items.join('\n')}`)
      }),
    ])
  return {
    pid,
    lines,
    exited,
    line,
    running: async () => {
      const l = await line(/^hark: running on /)
      return Object.fromEntries([...l.matchAll(/(\w[\w-]*)=(\d+)/g)].map((m) => [m[1]!, Number(m[2])]))
    },
    stop: async (signal = 'SIGTERM') => {
      process.kill(await pid, signal)
      const code = await exited
      child.stdin?.end()
      return code
    },
  }
}
