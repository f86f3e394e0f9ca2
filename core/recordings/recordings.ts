/**
 * Room recordings, the control side: starting and stopping a room's recorder (roomRecorder.ts)
 * and attaching it to the room (through the terminal hub: the room actor sets the tap on its
 * router and tells its members), recording every session of a room whose setting asks for it,
 * the rows in storage, the `recording.*` webhooks, the disk floor's failure, the recovery pass
 * that finishes what a crash left open, and retention. One per engine; the REST API and the
 * console reach it through the workspace operations.
 */
import { mkdir, readdir, rm, statfs } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import type { ClockShape } from '../clock.js'
import type { Settings } from '../config.js'
import { Conflict, NotFound } from '../errors.js'
import { newRecordingId } from '../ids.js'
import type { Logger } from '../log.js'
import type { RecordedTrack, RecordingQuery, RecordingRecord, RecordingTracksSetting } from '../storage/recordings.js'
import type { StorageShape } from '../storage/storage.js'
import type { TerminalHub } from '../terminals.js'
import type { WebhookEventInput } from '../webhooks/events.js'
import { repairOgg } from './oggRead.js'
import { RoomRecorder, type TrackInfo, type TrackSummary } from './roomRecorder.js'

export interface RecordingsDeps {
  readonly settings: Settings
  readonly storage: StorageShape
  readonly clock: Pick<ClockShape, 'now'>
  readonly hub: TerminalHub
  readonly log: Logger
  readonly nodeId: string
  /** Live webhook events (the outbox's `publish`). */
  readonly publish: (event: WebhookEventInput) => void
}

interface Active {
  readonly record: RecordingRecord
  readonly recorder: RoomRecorder
  /** Set once stopping began: later stops wait for the same end. */
  ending: Promise<RecordingRecord> | null
  /** Who wants it: a REST start or the room's setting keep it until the room closes (or DELETE)… */
  byApiOrRoom: boolean
  /** …else the agents whose preset records (agentIds in the room): it ends when the last leaves. */
  readonly agents: Set<string>
}

const RETENTION_SWEEP_MS = 3_600_000
const keyOf = (workspaceId: string, room: string) => `${workspaceId}\u0000${room}`

export class Recordings {
  private readonly active = new Map<string, Active>()
  private readonly dir: string
  private owns: (workspaceId: string, room: string) => boolean = () => true
  private readonly detach: Array<() => void> = []
  private sweep: NodeJS.Timeout | null = null
  private readonly endListeners = new Set<(record: RecordingRecord, reason: string) => void>()
  private closing = false
  /** The room setting of a workspace's rooms that record (room → tracks), read once per workspace, forgotten on its `room.updated`. */
  private readonly autoRecordRooms = new Map<string, ReadonlyMap<string, RecordingTracksSetting>>()

  constructor(private readonly deps: RecordingsDeps) {
    this.dir = resolve(deps.settings.recordings.dir ?? join(deps.settings.dataDir, 'recordings'))
  }

  /** Listen to rooms opening (the room setting) and closing; run the recovery pass and retention. */
  async start(): Promise<void> {
    const { hub } = this.deps
    this.detach.push(
      hub.on('room.occupancy', (e) => {
        if (e.terminalsBefore === 0 && e.terminals > 0) this.autoRecord(e.workspaceId, e.room)
      }),
      hub.on('room.closed', (e) => {
        const active = this.active.get(keyOf(e.workspaceId, e.room))
        if (active) void this.end(active, 'finished', 'room_closed')
      }),
      // A room's settings changed (here, in another process, on another node): read its workspace's again.
      this.deps.storage.feed.on('room.updated', (change) => void this.autoRecordRooms.delete(change.workspaceId!)),
    )
    await this.recover()
    await this.expire()
    this.sweep = setInterval(() => void this.expire(), RETENTION_SWEEP_MS)
    this.sweep.unref()
  }

  /** In a cluster, only the room's owner node records it. */
  setOwnership(owns: (workspaceId: string, room: string) => boolean): void {
    this.owns = owns
  }

  /**
   * Start recording a room open on this node: `startedBy` is `api` (REST), `room` (its setting) or
   * `agent:<agentId>` (an agent whose preset records). A REST start of a room that only agents
   * record keeps that recording (it no longer ends with the agents) and answers it with `adopted`.
   */
  async startRecording(workspaceId: string, room: string, tracks: RecordingTracksSetting, startedBy = 'api'): Promise<RecordingRecord> {
    return (await this.startOrAdopt(workspaceId, room, tracks, startedBy)).record
  }

  async startOrAdopt(workspaceId: string, room: string, tracks: RecordingTracksSetting, startedBy = 'api'): Promise<{ record: RecordingRecord; adopted: boolean }> {
    const { hub, storage, clock, settings, nodeId } = this.deps
    if (this.closing) throw new Conflict({ message: 'the server is shutting down' })
    if (hub.roomView(workspaceId, room) === null) throw new Conflict({ message: `room ${room} has nobody in it on this node: a recording starts in an open room` })
    if (!this.owns(workspaceId, room)) throw new Conflict({ message: `room ${room} is owned by another node of the cluster: its owner records it` })
    const key = keyOf(workspaceId, room)
    const running = this.active.get(key)
    if (running && startedBy === 'api' && !running.byApiOrRoom && running.ending === null) {
      running.byApiOrRoom = true
      this.deps.log.info({ workspaceId, room, recordingId: running.record.recordingId }, 'recording kept by a REST start')
      return { record: running.record, adopted: true }
    }
    if (running) throw new Conflict({ message: `room ${room} is already being recorded` })
    const now = clock.now()
    const recordingId = newRecordingId(now)
    const dir = join(this.dir, workspaceId, recordingId)
    const record: RecordingRecord = {
      recordingId, workspaceId, room, tracks, status: 'recording', nodeId, dir, startedAt: now, endedAt: null, durationMs: null,
      sizeBytes: 0, trackList: [], startedBy, failure: null,
    }
    const recorder = new RoomRecorder({
      recordingId, room, tracks, dir,
      flushMs: settings.recordings.flushMs,
      minFreeBytes: settings.recordings.minFreeMb * 1024 * 1024,
      failed: (reason) => {
        const active = this.active.get(key)
        if (active?.recorder === recorder) void this.end(active, 'failed', reason)
      },
      tracksChanged: (list) => {
        if (this.active.get(key)?.recorder === recorder) storage.recordings.setTracks(recordingId, list.map(pendingTrack))
      },
    })
    // Held before the first await: a second start of the same room is refused, not raced.
    const agentId = startedBy.startsWith('agent:') ? startedBy.slice('agent:'.length) : null
    const active: Active = { record, recorder, ending: null, byApiOrRoom: agentId === null, agents: new Set(agentId === null ? [] : [agentId]) }
    this.active.set(key, active)
    try {
      await this.checkFloor()
      storage.recordings.insert(record)
      await recorder.start()
    } catch (e) {
      this.active.delete(key)
      if (storage.recordings.get(workspaceId, recordingId)) {
        storage.recordings.end(recordingId, { status: 'failed', endedAt: clock.now(), durationMs: 0, sizeBytes: 0, trackList: [], failure: (e as Error).message })
      }
      throw e
    }
    hub.setRoomRecording(workspaceId, room, recorder)
    this.deps.publish({ workspaceId, type: 'recording.started', at: now, data: { recordingId, room, tracks } })
    // The room may have closed while the files were made (its room.closed came before the tap was set): end it now.
    if (hub.roomView(workspaceId, room) === null) void this.end(active, 'finished', 'room_closed')
    this.deps.log.info({ workspaceId, room, recordingId, tracks, startedBy }, 'recording started')
    return { record, adopted: false }
  }

  /**
   * An agent whose preset records (`record.tracks`) runs in a room of this node: the room's
   * recording starts if none runs (named `agent:<agentId>`), else the running one is wanted by it too.
   */
  agentJoined(workspaceId: string, room: string, agentId: string, tracks: RecordingTracksSetting): void {
    if (this.closing) return
    const running = this.active.get(keyOf(workspaceId, room))
    if (running) {
      if (running.ending === null) running.agents.add(agentId)
      return
    }
    this.startRecording(workspaceId, room, tracks, `agent:${agentId}`).catch((e: Error) =>
      this.deps.log.warn({ workspaceId, room, agentId, err: e.message }, 'the agent preset could not start a recording'))
  }

  /** That agent left: a recording only agents wanted ends with the last of them (`reason: "agent_left"`). */
  agentLeft(workspaceId: string, room: string, agentId: string): void {
    const active = this.active.get(keyOf(workspaceId, room))
    if (!active || !active.agents.delete(agentId)) return
    if (active.agents.size === 0 && !active.byApiOrRoom) void this.end(active, 'finished', 'agent_left')
  }

  /** Stop a room's recording; its record, finished. */
  async stopRecording(workspaceId: string, room: string): Promise<RecordingRecord> {
    const active = this.active.get(keyOf(workspaceId, room))
    if (!active) throw new NotFound({ message: `room ${room} is not being recorded` })
    return this.end(active, 'finished', 'stopped')
  }

  /** Hear every recording that ends (finished or failed), with its stored record and why (the webhook's `reason`). */
  onEnded(listener: (record: RecordingRecord, reason: string) => void): () => void {
    this.endListeners.add(listener)
    return () => this.endListeners.delete(listener)
  }

  /** The recording running in a room now, if any. */
  current(workspaceId: string, room: string): RecordingRecord | null {
    return this.active.get(keyOf(workspaceId, room))?.record ?? null
  }

  get(workspaceId: string, recordingId: string): RecordingRecord {
    const r = this.deps.storage.recordings.get(workspaceId, recordingId)
    if (!r) throw new NotFound({ message: `recording ${recordingId} not found` })
    return r
  }

  list(workspaceId: string, q: RecordingQuery): RecordingRecord[] {
    return this.deps.storage.recordings.list(workspaceId, q)
  }

  /** Where a track's file is, for a download: on this node only. */
  trackFile(workspaceId: string, recordingId: string, track: string): { record: RecordingRecord; path: string; track: RecordedTrack } {
    const record = this.get(workspaceId, recordingId)
    const t = record.trackList.find((x) => x.name === track)
    if (!t) throw new NotFound({ message: `recording ${recordingId} has no track ${track}` })
    if (record.nodeId !== this.deps.nodeId) throw new NotFound({ message: `recording ${recordingId} was made on node ${record.nodeId}: download it there` })
    return { record, path: join(record.dir, t.file), track: t }
  }

  /** Delete a recording and its files (a running one is stopped first). */
  async delete(workspaceId: string, recordingId: string): Promise<RecordingRecord> {
    const record = this.get(workspaceId, recordingId)
    const active = this.active.get(keyOf(workspaceId, record.room))
    if (active?.record.recordingId === recordingId) await this.end(active, 'finished', 'deleted')
    if (record.nodeId === this.deps.nodeId) await rm(record.dir, { recursive: true, force: true })
    this.deps.storage.recordings.delete(workspaceId, recordingId)
    return record
  }

  /**
   * The room's setting: record every session with these tracks (null: not by itself). Written with
   * a `room.updated` change (its default agent as it is), so every node forgets what it read.
   */
  setAutoRecord(workspaceId: string, room: string, tracks: RecordingTracksSetting | null): void {
    const { storage, clock } = this.deps
    const now = clock.now()
    storage.transaction(() => {
      storage.recordings.setAutoRecord(workspaceId, room, tracks, now)
      const defaultAgent = storage.roomSettings.get(workspaceId, room)?.defaultAgent ?? null
      storage.feed.record({ kind: 'room.updated', workspaceId, subject: room, at: now, defaultAgent })
    })
  }

  autoRecordOf(workspaceId: string, room: string): RecordingTracksSetting | null {
    return this.deps.storage.recordings.autoRecord(workspaceId, room)
  }

  /** Engine stop: every recording finished (files complete) before the rooms close. */
  async stop(): Promise<void> {
    this.closing = true
    for (const d of this.detach) d()
    if (this.sweep !== null) clearInterval(this.sweep)
    await Promise.all([...this.active.values()].map((a) => this.end(a, 'finished', 'shutdown').catch(() => {})))
  }

  private autoRecord(workspaceId: string, room: string): void {
    if (this.closing || !this.owns(workspaceId, room)) return
    const running = this.active.get(keyOf(workspaceId, room))
    if (running !== undefined && running.byApiOrRoom) return
    let tracks: RecordingTracksSetting | null
    try {
      let rooms = this.autoRecordRooms.get(workspaceId)
      if (rooms === undefined) {
        rooms = this.deps.storage.recordings.autoRecordRooms(workspaceId)
        this.autoRecordRooms.set(workspaceId, rooms)
      }
      tracks = rooms.get(room) ?? null
    } catch (e) {
      this.deps.log.warn({ workspaceId, room, err: (e as Error).message }, 'cannot read the room recording setting')
      return
    }
    if (tracks === null) return
    // An agent's recording already runs (the agent came first): the room's setting keeps it for the session.
    if (running !== undefined) {
      running.byApiOrRoom = true
      return
    }
    this.startRecording(workspaceId, room, tracks, 'room').catch((e: Error) =>
      this.deps.log.warn({ workspaceId, room, err: e.message }, 'the room setting could not start a recording'))
  }

  private async checkFloor(): Promise<void> {
    const floor = this.deps.settings.recordings.minFreeMb * 1024 * 1024
    if (floor === 0) return
    await mkdir(this.dir, { recursive: true, mode: 0o700 })
    const s = await statfs(this.dir)
    const free = s.bavail * s.bsize
    if (free < floor) throw new Conflict({ message: `disk space below recordings.minFreeMb: ${free} bytes free, ${floor} required` })
  }

  private end(active: Active, status: 'finished' | 'failed', reason: string): Promise<RecordingRecord> {
    active.ending ??= this.finish(active, status, reason)
    return active.ending
  }

  private async finish(active: Active, status: 'finished' | 'failed', reason: string): Promise<RecordingRecord> {
    const { record, recorder } = active
    const { workspaceId, room, recordingId, tracks } = record
    const key = keyOf(workspaceId, room)
    // The tap goes first: no frame reaches the files while they are closed.
    this.deps.hub.setRoomRecording(workspaceId, room, null)
    let summary: { durationMs: number; tracks: TrackSummary[] }
    try {
      summary = await recorder.stop()
    } catch (e) {
      summary = { durationMs: 0, tracks: recorder.trackList().map((t) => ({ ...t, bytes: 0, durationMs: 0 })) }
      status = 'failed'
      reason = (e as Error).message
    }
    if (this.active.get(key) === active) this.active.delete(key)
    const sizeBytes = summary.tracks.reduce((n, t) => n + t.bytes, 0)
    const ended: RecordingRecord = {
      ...record, status, endedAt: this.deps.clock.now(), durationMs: summary.durationMs, sizeBytes, trackList: summary.tracks,
      failure: status === 'failed' ? reason : null,
    }
    try {
      this.deps.storage.recordings.end(recordingId, {
        status, endedAt: ended.endedAt!, durationMs: summary.durationMs, sizeBytes, trackList: summary.tracks, failure: ended.failure,
      })
    } catch (e) {
      this.deps.log.error({ recordingId, err: (e as Error).message }, 'cannot store the end of a recording')
    }
    for (const l of this.endListeners) l(ended, reason)
    const data = { recordingId, room, tracks, reason, durationMs: summary.durationMs, sizeBytes }
    this.deps.publish({ workspaceId, type: status === 'failed' ? 'recording.failed' : 'recording.finished', at: ended.endedAt!, data })
    this.deps.log[status === 'failed' ? 'warn' : 'info']({ workspaceId, room, recordingId, reason, sizeBytes }, `recording ${status}`)
    return ended
  }

  /**
   * Recordings this node left running when it was killed: each track file cut after its last
   * whole page, that page marked end of stream, the row finished with what the files hold.
   */
  async recover(): Promise<number> {
    const { storage, nodeId, clock, log } = this.deps
    const running = storage.recordings.running(nodeId)
    for (const record of running) {
      const trackList: RecordedTrack[] = []
      let files: string[] = []
      try {
        files = (await readdir(record.dir)).filter((f) => f.endsWith('.opus'))
      } catch {
        // The directory is gone: nothing to finish.
      }
      for (const known of record.trackList) {
        if (!files.includes(known.file)) continue
        const r = await repairOgg(join(record.dir, known.file)).catch(() => null)
        if (r !== null) trackList.push({ ...known, bytes: r.bytes, durationMs: Math.round(r.seconds * 1000) })
      }
      const durationMs = Math.max(0, ...trackList.map((t) => t.durationMs))
      const sizeBytes = trackList.reduce((n, t) => n + t.bytes, 0)
      const endedAt = record.startedAt + durationMs
      storage.recordings.end(record.recordingId, { status: 'finished', endedAt, durationMs, sizeBytes, trackList, failure: null })
      this.deps.publish({
        workspaceId: record.workspaceId, type: 'recording.finished', at: clock.now(),
        data: { recordingId: record.recordingId, room: record.room, tracks: record.tracks, reason: 'recovered', durationMs, sizeBytes },
      })
      log.warn({ recordingId: record.recordingId, room: record.room, durationMs }, 'recording left open by a crash finished')
    }
    return running.length
  }

  /** Delete ended recordings past retention (this node's files). */
  async expire(): Promise<number> {
    const days = this.deps.settings.recordings.retentionDays
    if (days === 0) return 0
    const { storage, clock, nodeId } = this.deps
    const old = storage.recordings.endedBefore(clock.now() - days * 86_400_000, nodeId, 500)
    for (const r of old) {
      await rm(r.dir, { recursive: true, force: true }).catch(() => {})
      storage.recordings.delete(r.workspaceId, r.recordingId)
    }
    return old.length
  }
}

/** A track as stored while its recording runs (sizes come at the end). */
const pendingTrack = (t: TrackInfo): RecordedTrack => ({ ...t, bytes: 0, durationMs: 0 })
