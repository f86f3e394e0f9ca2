/**
 * Every process the bench starts, and how each one stops: by PID, SIGTERM first, SIGKILL after a
 * grace period, always waiting for the exit event. A Ctrl-C or SIGTERM of the runner stops all
 * of them before it exits; a last-resort exit hook SIGKILLs anything still listed.
 */
import { spawn, type ChildProcess, type StdioOptions } from 'node:child_process'
import { closeSync, openSync } from 'node:fs'

export interface SpawnSpec {
  /** Shown in logs and errors, e.g. "hark", "uws", "gen-1". */
  readonly name: string
  readonly command: string
  readonly args?: readonly string[]
  /** Pin to these cores with taskset (which execs, so the PID stays the command's). */
  readonly cpus?: readonly number[] | null
  readonly env?: NodeJS.ProcessEnv
  readonly cwd?: string
  /** Append stdout and stderr here; otherwise they are discarded. */
  readonly logFile?: string
  /** Share this process's stdout and stderr (for tests and debugging) instead of a log file. */
  readonly inheritOutput?: boolean
  /** Keep stdout as a pipe (e.g. to read a CLI's --json answer); stderr still goes to logFile. */
  readonly captureStdout?: boolean
  /** Keep stdin as a pipe (a child driven by lines on its stdin, e.g. the native generator). */
  readonly pipeStdin?: boolean
  /** Open a Node IPC channel (children written for the bench). */
  readonly ipc?: boolean
}

export interface ExitInfo {
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
}

/** Processes started and not yet seen to exit, across all groups (for the signal handler). */
const live = new Set<ManagedProcess>()

export class ManagedProcess {
  readonly pid: number
  readonly exited: Promise<ExitInfo>
  private exitInfo: ExitInfo | null = null

  constructor(
    readonly name: string,
    readonly child: ChildProcess,
  ) {
    if (child.pid === undefined) throw new Error(`${name}: spawn failed`)
    this.pid = child.pid
    this.exited = new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        this.exitInfo = { code, signal }
        live.delete(this)
        resolve(this.exitInfo)
      })
    })
    live.add(this)
  }

  get hasExited(): boolean {
    return this.exitInfo !== null
  }

  /** SIGTERM, wait up to `graceMs` for the exit event, then SIGKILL and wait again. */
  async stop(graceMs = 3000): Promise<ExitInfo> {
    if (this.exitInfo) return this.exitInfo
    signalPid(this.pid, 'SIGTERM')
    const first = await Promise.race([this.exited, timeout(graceMs)])
    if (first) return first
    signalPid(this.pid, 'SIGKILL')
    const second = await Promise.race([this.exited, timeout(5000)])
    if (!second) throw new Error(`${this.name} (pid ${this.pid}) did not exit after SIGKILL`)
    return second
  }
}

const timeout = (ms: number) =>
  new Promise<null>((resolve) => {
    setTimeout(() => resolve(null), ms).unref()
  })

const signalPid = (pid: number, signal: NodeJS.Signals) => {
  try {
    process.kill(pid, signal)
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ESRCH') throw e
  }
}

/** Start a process; stdin is closed unless piped, output goes to the log file or nowhere. */
export const spawnManaged = (spec: SpawnSpec): ManagedProcess => {
  const pin = spec.cpus && spec.cpus.length > 0
  const command = pin ? 'taskset' : spec.command
  const args = pin ? ['-c', spec.cpus!.join(','), spec.command, ...(spec.args ?? [])] : [...(spec.args ?? [])]
  const fd = spec.logFile ? openSync(spec.logFile, 'a') : null
  const out = spec.inheritOutput ? 'inherit' : (fd ?? 'ignore')
  const stdio: StdioOptions = [spec.pipeStdin ? 'pipe' : 'ignore', spec.captureStdout ? 'pipe' : out, out]
  if (spec.ipc) stdio.push('ipc')
  try {
    const child = spawn(command, args, { stdio, env: spec.env ?? process.env, cwd: spec.cwd })
    return new ManagedProcess(spec.name, child)
  } finally {
    if (fd !== null) closeSync(fd)
  }
}

/** The processes of one scope (a measurement, a scenario); `stopAll` ends them in reverse order. */
export class ProcessGroup {
  private readonly members: ManagedProcess[] = []

  spawn(spec: SpawnSpec): ManagedProcess {
    const p = spawnManaged(spec)
    this.members.push(p)
    return p
  }

  get running(): readonly ManagedProcess[] {
    return this.members.filter((p) => !p.hasExited)
  }

  async stopAll(graceMs = 3000): Promise<void> {
    const errors: unknown[] = []
    for (const p of [...this.members].reverse()) {
      try {
        await p.stop(graceMs)
      } catch (e) {
        errors.push(e)
      }
    }
    if (errors.length > 0) throw errors[0]
  }
}

/** Every bench process still running, in any group. */
export const liveProcesses = (): readonly ManagedProcess[] => [...live]

/** Stop every process still running, in parallel; resolves once each one's exit was seen. */
export const stopEverything = async (graceMs = 3000): Promise<void> => {
  await Promise.allSettled([...live].map((p) => p.stop(graceMs)))
}

let installed = false

/**
 * On SIGINT/SIGTERM: run `onSignal` (e.g. stop the progress bar), stop every process by PID,
 * then exit 130/143. A second signal SIGKILLs what is left and exits at once.
 */
export const installSignalCleanup = (onSignal?: (signal: NodeJS.Signals) => void): void => {
  if (installed) return
  installed = true
  let stopping = false
  const handle = (signal: NodeJS.Signals) => {
    const code = signal === 'SIGINT' ? 130 : 143
    if (stopping) {
      for (const p of live) signalPid(p.pid, 'SIGKILL')
      process.exit(code)
    }
    stopping = true
    try {
      onSignal?.(signal)
    } catch {
      // cleanup must go on whatever the callback does
    }
    process.stderr.write(`\nbench: ${signal}: stopping ${live.size} process(es)\n`)
    void stopEverything().finally(() => process.exit(code))
  }
  process.on('SIGINT', handle)
  process.on('SIGTERM', handle)
  process.on('exit', () => {
    for (const p of live) signalPid(p.pid, 'SIGKILL')
  })
}
