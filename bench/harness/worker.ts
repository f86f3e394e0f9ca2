/**
 * The IPC protocol between the runner and the bench's own child processes (load generators,
 * peers, verifiers). Messages are JSON objects with a `type`. A child started with `serveWorker`
 * exits when the runner goes away (IPC disconnect) or its own deadline passes, so nothing
 * outlives a runner that was killed outright.
 */
import type { ManagedProcess, ProcessGroup } from './processes.js'

export interface WorkerMessage {
  readonly type: string
  readonly [key: string]: unknown
}

/** Messages every worker may send besides its own. */
export interface ErrorMessage extends WorkerMessage {
  readonly type: 'error'
  readonly message: string
}

export class WorkerFailed extends Error {}

/** How messages travel between the runner and a child: Node IPC, or lines on stdin/stdout. */
export interface MessageChannel {
  onMessage(listener: (m: WorkerMessage) => void): void
  send(message: WorkerMessage): void
  /** Settles once no message can come any more (default: when the process exits). */
  readonly closed?: Promise<unknown>
}

/** The Node IPC channel of a child started with `ipc: true`. */
export const ipcChannel = (proc: ManagedProcess): MessageChannel => ({
  onMessage: (listener) => void proc.child.on('message', listener),
  send: (message) => {
    if (!proc.hasExited && proc.child.connected) proc.child.send(message)
  },
})

/** The runner's handle on a child it exchanges messages with (IPC by default). */
export class WorkerHandle {
  private readonly inbox: WorkerMessage[] = []
  private waiter: ((m: WorkerMessage | null) => void) | null = null
  private closed = false

  constructor(
    readonly proc: ManagedProcess,
    private readonly channel: MessageChannel = ipcChannel(proc),
  ) {
    channel.onMessage((m: WorkerMessage) => {
      if (this.waiter) {
        const w = this.waiter
        this.waiter = null
        w(m)
      } else this.inbox.push(m)
    })
    void (channel.closed ?? proc.exited).then(() => {
      this.closed = true
      this.waiter?.(null)
      this.waiter = null
    })
  }

  send(message: WorkerMessage): void {
    this.channel.send(message)
  }

  /** The next message of `type`; fails on an `error` message, exit, or after `timeoutMs`. */
  async next<M extends WorkerMessage>(type: M['type'], timeoutMs: number): Promise<M> {
    const deadline = Date.now() + timeoutMs
    for (;;) {
      const m = this.inbox.shift() ?? (await this.wait(deadline - Date.now()))
      if (m === null) {
        const why = this.closed ? 'exited' : `sent no "${type}" within ${timeoutMs} ms`
        throw new WorkerFailed(`${this.proc.name} (pid ${this.proc.pid}) ${why}`)
      }
      if (m.type === 'error') throw new WorkerFailed(`${this.proc.name}: ${(m as ErrorMessage).message}`)
      if (m.type === type) return m as M
    }
  }

  private wait(ms: number): Promise<WorkerMessage | null> {
    if (this.closed || ms <= 0) return Promise.resolve(null)
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waiter = null
        resolve(null)
      }, ms)
      this.waiter = (m) => {
        clearTimeout(timer)
        resolve(m)
      }
    })
  }
}

export interface StartWorkerSpec {
  readonly name: string
  /** Absolute path of the compiled worker module (.js). */
  readonly module: string
  readonly args?: readonly string[]
  readonly cpus?: readonly number[] | null
  readonly logFile?: string
  readonly env?: NodeJS.ProcessEnv
  readonly nodeArgs?: readonly string[]
}

/** Start a Node worker with an IPC channel in `group`. */
export const startWorker = (group: ProcessGroup, spec: StartWorkerSpec): WorkerHandle =>
  new WorkerHandle(
    group.spawn({
      name: spec.name,
      command: process.execPath,
      args: [...(spec.nodeArgs ?? []), spec.module, ...(spec.args ?? [])],
      cpus: spec.cpus ?? null,
      ...(spec.logFile ? { logFile: spec.logFile } : {}),
      ...(spec.env ? { env: spec.env } : {}),
      ipc: true,
    }),
  )

/**
 * Child side: call `onMessage` for each runner message; `send` replies. Exits when the runner
 * disconnects, on SIGTERM/SIGINT (after `onStop`), or when `deadlineMs` passes.
 */
export const serveWorker = (opts: {
  onMessage: (m: WorkerMessage, send: (m: WorkerMessage) => void) => void | Promise<void>
  onStop?: () => void | Promise<void>
  deadlineMs: number
}): ((m: WorkerMessage) => void) => {
  if (!process.send) throw new Error('a bench worker must be started with an IPC channel')
  const send = (m: WorkerMessage) => {
    if (process.connected) process.send!(m)
  }
  let stopping = false
  const stop = async (code: number) => {
    if (stopping) return
    stopping = true
    try {
      await opts.onStop?.()
    } finally {
      process.exit(code)
    }
  }
  process.on('message', (m: WorkerMessage) => {
    Promise.resolve()
      .then(() => opts.onMessage(m, send))
      .catch((e: unknown) => {
        send({ type: 'error', message: e instanceof Error ? e.message : String(e) })
      })
  })
  process.on('disconnect', () => void stop(0))
  process.on('SIGTERM', () => void stop(0))
  process.on('SIGINT', () => void stop(0))
  setTimeout(() => {
    process.stderr.write(`worker deadline of ${opts.deadlineMs} ms passed; exiting\n`)
    void stop(3)
  }, opts.deadlineMs).unref()
  return send
}
