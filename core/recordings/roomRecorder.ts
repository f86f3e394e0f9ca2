/**
 * One recording of one room: its Ogg Opus files and the data-plane tap that fills them. The room's
 * router calls `frame` for every frame it routes (a plain function: no actor, Effect, JSON or
 * allocation); a participant's packet is copied untouched onto its track's open page, with Opus
 * silence packets put in first when the talker was quiet, so every track keeps the recording's
 * time line. A timer (flushMs, at most a second) closes the open pages and writes them
 * (FileHandle.write: in the OS's cache, so a kill -9 loses nothing written; datasync every few
 * flushes), fills quiet tracks with silence up to now, mixes the `mixed` track and checks the disk's
 * free space against the floor.
 */
import { mkdir, open, statfs, type FileHandle } from 'node:fs/promises'
import { join } from 'node:path'
import type { RecordingTap } from '../dataplane/roomRouter.js'
import type { ParticipantInfo } from '../events.js'
import { OggOpusStream, SAMPLES_20MS, SILENCE_PACKET, opusPacketSamples } from './oggOpus.js'
import { MIX_PRE_SKIP as PRE_SKIP, RecordingMix } from './recordingMix.js'

export type RecordingTracks = 'mixed' | 'per-participant' | 'both'


/** What the room actor holds while its room is recorded: the tap, told of every join and leave. */
export interface RoomRecording extends RecordingTap {
  readonly recordingId: string
  readonly tracks: RecordingTracks
  /** Who is in the room now (after every join and leave; off the hot path). */
  roster(participants: ReadonlyArray<ParticipantInfo>): void
}

export interface TrackInfo {
  /** `mixed`, or `p1`, `p2` … for participants in the order they were first heard of. */
  readonly name: string
  readonly participantId: string | null
  readonly kind: 'terminal' | 'agent' | null
  readonly file: string
}

export interface TrackSummary extends TrackInfo {
  readonly bytes: number
  readonly durationMs: number
}

export interface RecorderOptions {
  readonly recordingId: string
  readonly room: string
  readonly tracks: RecordingTracks
  /** The recording's own directory (created here). */
  readonly dir: string
  /** The data plane's clock (performance.now()): frames are stamped with it. */
  readonly now?: () => number
  readonly flushMs?: number
  /** Free bytes below which the recording stops (0: no floor). */
  readonly minFreeBytes: number
  /** A write failed or the disk went below its floor: the recorder stopped writing; the owner detaches it. */
  readonly failed: (reason: string) => void
  /** The track list changed (a participant was first heard of): the owner stores it. */
  readonly tracksChanged: (tracks: ReadonlyArray<TrackInfo>) => void
}

/** A talker this far behind the recording's clock was quiet: silence fills the gap (also the jitter tolerated). */
const LAG_MS = 60
const LAG = (48000 * LAG_MS) / 1000
/** The mixed track is mixed this far behind real time (late packets still land in place). */
const MIX_LAG_MS = 200
/** datasync every this many flushes. */
const SYNC_EVERY = 5
/** statfs every this many flushes. */
const FLOOR_EVERY = 2

class TrackFile {
  private handle: Promise<FileHandle>
  private chain: Promise<unknown>
  written = 0
  constructor(readonly info: TrackInfo, path: string, readonly stream: OggOpusStream, headers: Buffer, onError: (e: Error) => void) {
    this.handle = open(path, 'wx', 0o600)
    this.chain = this.handle.then((h) => h.write(headers)).then(() => (this.written += headers.length))
    this.chain.catch(onError)
    this.onError = onError
  }
  private readonly onError: (e: Error) => void

  write(page: Buffer, sync: boolean): void {
    this.chain = this.chain.then(async () => {
      const h = await this.handle
      await h.write(page)
      this.written += page.length
      if (sync) await h.datasync()
    })
    this.chain.catch(this.onError)
  }

  async close(): Promise<void> {
    await this.chain.catch(() => {})
    const h = await this.handle.catch(() => null)
    if (h !== null) {
      await h.datasync().catch(() => {})
      await h.close().catch(() => {})
    }
  }
}

export class RoomRecorder implements RoomRecording {
  readonly recordingId: string
  readonly tracks: RecordingTracks
  private readonly now: () => number
  readonly startedAt: number
  /** Participant tracks by the source id they send with now (replaced on every join and leave). */
  private bySource: ReadonlyMap<number, TrackFile> = new Map()
  private readonly byParticipant = new Map<string, TrackFile>()
  private readonly files: TrackFile[] = []
  private mixed: { readonly file: TrackFile; readonly mix: RecordingMix } | null = null
  private timer: NodeJS.Timeout | null = null
  private flushes = 0
  private serial = 1
  private stopped = false
  private failure: string | null = null
  /** A write failed: the files are left as they are (the recovery pass can repair them). */
  private writeFailed = false
  framesRecorded = 0

  constructor(private readonly options: RecorderOptions) {
    this.recordingId = options.recordingId
    this.tracks = options.tracks
    this.now = options.now ?? (() => performance.now())
    this.startedAt = this.now()
  }

  /** Create the directory and the mixed track's file; start the flush timer. */
  async start(): Promise<void> {
    await mkdir(this.options.dir, { recursive: true, mode: 0o700 })
    if (this.tracks !== 'per-participant') {
      const file = this.newFile({ name: 'mixed', participantId: null, kind: null, file: 'mixed.opus' })
      this.mixed = { file, mix: new RecordingMix(file.stream, this.startedAt, (page) => file.write(page, false)) }
      this.options.tracksChanged(this.trackList())
    }
    this.timer = setInterval(this.flush, this.options.flushMs ?? 1000)
    this.timer.unref()
  }

  trackList(): TrackInfo[] {
    return this.files.map((f) => f.info)
  }

  /**
   * Every track has libopus's pre-skip (6.5 ms, what a terminal's encoder and the mix's have): a
   * track's granule position is its time since the recording started plus PRE_SKIP.
   */
  private newFile(info: TrackInfo): TrackFile {
    const stream = new OggOpusStream(this.serial++)
    const comments = [`HARK_RECORDING=${this.recordingId}`, `HARK_ROOM=${this.options.room}`, `HARK_TRACK=${info.name}`]
    if (info.participantId !== null) comments.push(`HARK_PARTICIPANT=${info.participantId}`)
    const file = new TrackFile(info, join(this.options.dir, info.file), stream, stream.headers(PRE_SKIP, 16000, comments), (e) => {
      this.writeFailed = true
      this.fail(`write failed: ${e.message}`)
    })
    this.files.push(file)
    return file
  }

  /** Hot path: one routed frame (V|level byte + Opus) of `sourceId`. */
  frame(sourceId: number, uplink: Uint8Array, now: number): void {
    if (this.stopped) return
    const track = this.bySource.get(sourceId)
    if (track !== undefined) {
      const samples = opusPacketSamples(uplink, 1, uplink.length)
      if (samples === 0) return
      const stream = track.stream
      const behind = PRE_SKIP + ((now - this.startedAt) * 48000) / 1000 - samples - stream.granule
      if (behind > LAG) this.silence(track, behind)
      if (!stream.fits(uplink.length - 1)) this.closePage(track)
      stream.append(uplink, 1, uplink.length, samples)
      this.framesRecorded++
    }
    const mixed = this.mixed
    if (mixed !== null) mixed.mix.frame(sourceId, uplink, now)
  }

  /** Whole 20 ms silence packets for `samples` of quiet. */
  private silence(track: TrackFile, samples: number): void {
    const stream = track.stream
    for (let n = Math.floor(samples / SAMPLES_20MS); n > 0; n--) {
      if (!stream.fits(SILENCE_PACKET.length)) this.closePage(track)
      stream.append(SILENCE_PACKET, 0, SILENCE_PACKET.length, SAMPLES_20MS)
    }
  }

  private closePage(track: TrackFile, eos = false, sync = false): void {
    const page = track.stream.takePage(eos)
    if (page !== null) track.write(page, sync)
  }

  roster(participants: ReadonlyArray<ParticipantInfo>): void {
    if (this.stopped) return
    const mixed = this.mixed
    const bySource = new Map<number, TrackFile>()
    if (this.tracks !== 'mixed') {
      let added = false
      const at = PRE_SKIP + ((this.now() - this.startedAt) * 48000) / 1000
      for (const p of participants) {
        let track = this.byParticipant.get(p.id)
        if (track === undefined) {
          const name = `p${this.byParticipant.size + 1}`
          track = this.newFile({ name, participantId: p.id, kind: p.kind, file: `${name}.opus` })
          this.byParticipant.set(p.id, track)
          this.silence(track, at) // the time before it joined
          added = true
        }
        bySource.set(p.sourceId, track)
      }
      if (added) this.options.tracksChanged(this.trackList())
    }
    if (mixed !== null) for (const id of this.bySource.keys()) if (!participants.some((p) => p.sourceId === id)) mixed.mix.removeSource(id)
    this.bySource = bySource
  }

  /** The flush timer: quiet tracks filled with silence, pages closed and written, the mix made, the floor checked. */
  readonly flush = (): void => {
    if (this.stopped) return
    const now = this.now()
    const sync = ++this.flushes % SYNC_EVERY === 0
    const at = PRE_SKIP + ((now - this.startedAt) * 48000) / 1000
    for (const track of this.byParticipant.values()) {
      const behind = at - LAG - track.stream.granule
      if (behind > 0) this.silence(track, behind)
      this.closePage(track, false, sync)
    }
    const mixed = this.mixed
    if (mixed !== null) {
      mixed.mix.flush(now, MIX_LAG_MS)
      this.closePage(mixed.file, false, sync)
    }
    if (this.options.minFreeBytes > 0 && this.flushes % FLOOR_EVERY === 0) this.checkFloor()
  }

  private checkFloor(): void {
    statfs(this.options.dir).then(
      (s) => {
        const free = s.bavail * s.bsize
        if (free < this.options.minFreeBytes) this.fail(`disk space below the floor: ${free} bytes free, ${this.options.minFreeBytes} required`)
      },
      (e: Error) => this.fail(`disk space unknown: ${e.message}`),
    )
  }

  private fail(reason: string): void {
    if (this.failure !== null || this.stopped) return
    this.failure = reason
    this.options.failed(reason)
  }

  get failed(): string | null {
    return this.failure
  }

  /**
   * Stop: every track filled to the end with silence (aligned), its last page marked end of
   * stream, written, synced and closed. Called once; frames after it are ignored.
   */
  async stop(): Promise<{ durationMs: number; tracks: TrackSummary[] }> {
    if (this.stopped) throw new Error('recorder already stopped')
    this.stopped = true
    if (this.timer !== null) clearInterval(this.timer)
    this.timer = null
    const now = this.now()
    const durationMs = Math.max(0, now - this.startedAt)
    const end = PRE_SKIP + (durationMs * 48000) / 1000
    // Below the floor the last pages are still written (a few bytes each), so every file ends its stream.
    const writable = !this.writeFailed
    for (const track of this.byParticipant.values()) {
      if (writable) {
        this.silence(track, end - track.stream.granule)
        if (!track.stream.pending) this.silence(track, SAMPLES_20MS)
        this.closePage(track, true, true)
      }
    }
    const mixed = this.mixed
    if (mixed !== null && writable) {
      mixed.mix.flush(now, 0)
      if (!mixed.file.stream.pending) mixed.mix.mixUntil(mixed.mix.mixed + 320)
      this.closePage(mixed.file, true, true)
    }
    await Promise.all(this.files.map((f) => f.close()))
    return {
      durationMs: Math.round(durationMs),
      tracks: this.files.map((f) => ({
        ...f.info,
        bytes: f.written,
        durationMs: Math.round(((f.stream.granule - PRE_SKIP) / 48000) * 1000),
      })),
    }
  }
}
