/**
 * Writes agents' conversations to storage as they go, and deletes old ones. Turns are queued and
 * written with the other writes of the event-loop turn in one transaction (`storage.batch`, on the
 * primary in a cluster), off the audio path: a crash loses at most what was queued since, the
 * turn in progress. Listeners (the `agent.turn` webhook, the console) hear each turn when the
 * recorder finishes it, in order. The retention sweep runs on the engine's clock.
 */
import type { ClockShape, Timer } from '../clock.js'
import { StorageUnavailable } from '../errors.js'
import type { Logger } from '../log.js'
import type { StorageShape } from '../storage/storage.js'
import type { TranscriptRecord, TranscriptTurn } from '../storage/transcripts.js'

/** A turn as listeners hear it: with its conversation. */
export interface TurnEvent {
  readonly workspaceId: string
  readonly agentId: string
  readonly room: string
  readonly identity: string
  readonly provider: string
  readonly presetId: string | null
  readonly turn: TranscriptTurn
}

export type ConversationSpec = Omit<TranscriptRecord, 'endedAt' | 'turns'>

/** One agent's conversation log, handed to its LiveAgent. */
export interface ConversationLog {
  /** The agent runs: its conversation exists (readable, listed) from now. */
  open(): void
  turn(turn: TranscriptTurn): void
  end(at: number): void
}

type Op =
  | { readonly op: 'open'; readonly spec: ConversationSpec }
  | { readonly op: 'turns'; readonly spec: ConversationSpec; readonly workspaceId: string; readonly agentId: string; readonly turns: TranscriptTurn[] }
  | { readonly op: 'end'; readonly workspaceId: string; readonly agentId: string; readonly at: number }

const HOUR_MS = 3_600_000
const DAY_MS = 86_400_000
const RETRY_MS = 1000

export class TranscriptWriter {
  private queue: Op[] = []
  private scheduled: Promise<void> | null = null
  private readonly listeners = new Set<(e: TurnEvent) => void>()
  private sweepTimer: Timer | null = null

  constructor(
    private readonly storage: StorageShape,
    private readonly clock: ClockShape,
    private readonly log: Logger,
    /** Days a conversation is kept after it ended; 0 keeps them. */
    private readonly retentionDays: number,
  ) {}

  /** Hear every finished turn, in order per agent. Returns the unsubscribe. */
  onTurn(listener: (e: TurnEvent) => void): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  conversation(spec: ConversationSpec): ConversationLog {
    let opened = false
    const open = () => {
      if (opened) return
      opened = true
      this.enqueue({ op: 'open', spec })
    }
    return {
      open,
      turn: (turn) => {
        open()
        const last = this.queue[this.queue.length - 1]
        if (last?.op === 'turns' && last.agentId === spec.agentId && last.workspaceId === spec.workspaceId) last.turns.push(turn)
        else this.enqueue({ op: 'turns', spec, workspaceId: spec.workspaceId, agentId: spec.agentId, turns: [turn] })
        this.announce({ ...spec, turn })
      },
      end: (at) => {
        if (opened) this.enqueue({ op: 'end', workspaceId: spec.workspaceId, agentId: spec.agentId, at })
      },
    }
  }

  /** Resolves once everything queued so far is written (tests, shutdown). */
  async flush(): Promise<void> {
    while (this.scheduled) await this.scheduled
  }

  /** Start the retention sweep: now, then hourly on the engine's clock. */
  start(): void {
    if (this.retentionDays === 0 || this.sweepTimer) return
    const tick = () => {
      this.sweep()
      this.sweepTimer = this.clock.setTimeout(tick, HOUR_MS)
    }
    tick()
  }

  stop(): void {
    if (this.sweepTimer) this.clock.clearTimeout(this.sweepTimer)
    this.sweepTimer = null
  }

  /** Delete conversations past retention; returns how many went. */
  sweep(): number {
    if (this.retentionDays === 0) return 0
    const before = this.clock.now() - this.retentionDays * DAY_MS
    try {
      const n = this.storage.transcripts.sweep(before, before)
      if (n > 0) this.log.info({ transcripts: n, retentionDays: this.retentionDays }, 'old transcripts deleted')
      return n
    } catch (e) {
      this.log.error({ err: e }, 'transcript retention sweep failed')
      return 0
    }
  }

  private announce(e: TurnEvent): void {
    for (const listener of this.listeners) {
      try {
        listener(e)
      } catch (err) {
        this.log.error({ err, agentId: e.agentId }, 'transcript turn listener failed')
      }
    }
  }

  private enqueue(op: Op): void {
    this.queue.push(op)
    if (this.scheduled) return
    const write = async () => {
      while (this.queue.length > 0) {
        const ops = this.queue
        this.queue = []
        try {
          await this.storage.batch(() => ops.forEach((o) => this.apply(o)))
        } catch (e) {
          if (e instanceof StorageUnavailable) {
            // The primary is away (a cluster): keep them in order and try again; a turn already written is skipped by its (agent, seq) key.
            this.queue = [...ops, ...this.queue]
            this.log.error({ err: e, queued: this.queue.length }, 'writing transcripts failed; retrying')
            await new Promise<void>((resolve) => setTimeout(resolve, RETRY_MS).unref())
            continue
          }
          // One of them cannot be written (its workspace was deleted meanwhile): write the others, drop it.
          for (const o of ops) {
            try {
              await this.storage.batch(() => this.apply(o))
            } catch (err) {
              this.log.error({ err, op: o.op, agentId: o.op === 'open' ? o.spec.agentId : o.agentId }, 'a transcript write failed; dropped')
            }
          }
        }
      }
    }
    this.scheduled = write().finally(() => (this.scheduled = null))
  }

  private apply(o: Op): void {
    if (o.op === 'open') this.storage.transcripts.open(o.spec)
    else if (o.op === 'turns') {
      // The record again first: a conversation erased while its agent runs starts anew with its next turns.
      this.storage.transcripts.open(o.spec)
      this.storage.transcripts.append(o.workspaceId, o.agentId, o.turns)
    }
    else this.storage.transcripts.end(o.workspaceId, o.agentId, o.at)
  }
}
