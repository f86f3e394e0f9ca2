/**
 * The room actor: owns a room's membership, the one truth of who is in it. On every join or leave
 * it assigns source ids, rebuilds its router's sink array (copy-on-write), tells the members, and
 * announces its terminal count with `emit` (`room.occupancy`); it tells its host (the workspace
 * actor) when it empties. It also turns the data plane's voice-activity signals into speaking
 * events for its members and announces them (`room.speaking`), sweeping for ended talk spurts
 * while anyone speaks; who is speaking now is in its context (`speaking`), as it announced it, for
 * views of the room opened mid-spurt. With every join and leave it also builds its roster — who is
 * in it, as one immutable value — and hands it to its room-agents actor (roomAgents.ts), where the
 * room's agents read it. One clock: the engine's, whose `monotonic()` the speaking sweep measures
 * with and whose timers arm it (for the system clock, the data plane's `performance.now()`, what
 * frames are stamped with). The router is the room's own: created with the actor, disposed at
 * close, and written by nobody else — a member's change of audio mode and, in a cluster, the other
 * nodes its frames go to (core/cluster) reach it as events (AUDIO_MODE, REMOTES).
 *
 *   empty --JOIN--> occupied.quiet --SPEAKING_STARTED--> occupied.speaking
 *   occupied.speaking --SPEAKERS_STOPPED (from its sweep), nobody speaks--> occupied.quiet
 *   occupied --last LEAVE--> empty
 *   empty | occupied --CLOSE--> closed (final: router disposed, ports detached)
 */
import { assertEvent, assign, createEmptyActor, emit, enqueueActions, sendTo, setup, type ActorRef, type Snapshot } from 'xstate'
import { systemClock, type ClockShape, type Timer } from '../clock.js'
import type { FanoutReceiver } from '../dataplane/fanout.js'
import { RoomRouter, type AudioSink, type RemoteSink, type RouterHooks, type SourcePort } from '../dataplane/roomRouter.js'
import type { AudioMode, ParticipantInfo, ServerEvent } from '../events.js'
import type { RoomRecording } from '../recordings/roomRecorder.js'

/** Anything that can be in a room: a terminal session or an agent. */
export interface RoomMember {
  readonly id: string
  readonly kind: 'terminal' | 'agent'
  readonly name: string | null
  /** `mixed` asks for one mixed stream instead of per-source frames (default `forward`). */
  readonly audioMode?: AudioMode
  /** Data plane: receive other members' frames (see AudioSink). */
  deliver(frame: Uint8Array): void
  /** The same as `deliver`, as a function that needs no receiver: the router calls it directly per frame. */
  readonly audioSink?: (frame: Uint8Array) => void
  /** Its transport's native fan-out (core/dataplane/fanout.ts), when it has one. */
  readonly fanout?: FanoutReceiver | null
  /** False for a member of another node relayed here (core/cluster): it is heard, never sent audio. */
  readonly listens?: boolean
  /** True while a session's `session` event waits for its usage row (core/session.ts IntroductionGate): sent no audio until LISTENS. */
  readonly introducing?: boolean
  /** A terminal's transport (its session's; a relayed member's as its node said); none for an agent. */
  readonly transport?: string | null
  /** Control plane: receive room events. */
  sendEvent(event: ServerEvent): void
  /** The room took the member in: its source port and who else is there. */
  joined(room: string, port: SourcePort, participants: ReadonlyArray<ParticipantInfo>): void
}

interface MemberEntry {
  readonly member: RoomMember
  readonly port: SourcePort
  readonly info: ParticipantInfo
}

export interface RoomContext {
  readonly workspaceId: string
  readonly room: string
  readonly router: RoomRouter
  readonly members: ReadonlyMap<string, MemberEntry>
  /** How many of the members are terminals (agents are not counted). */
  readonly terminals: number
  /** The terminal count before the last join or leave (what room.occupancy compares with). */
  readonly terminalsBefore: number
  /** When the terminal count last rose from 0 (engine clock, epoch ms); null before any terminal came. */
  readonly occupiedSince: number | null
  readonly nextSourceId: number
  readonly clock: Pick<ClockShape, 'now'>
  readonly host: RoomHost | null
  /**
   * Who hears the roster after every join and leave (its room-agents actor); none while no agent
   * and no policy needs one (the workspace attaches it then: AGENTS), or when a room runs on its own.
   */
  readonly agents: RoomRosterListener | null
  /** Who is in the room now, as agents read it (replaced, never edited, on every join and leave); empty while nobody hears it. */
  readonly roster: RoomRoster
  /** Ends talk spurts while anyone speaks (a plain timer: no actor step per sweep). */
  readonly sweep: SpeakingSweep
  /** Members whose talk spurt is on, as announced (room.speaking): started, not yet stopped, still here. */
  readonly speaking: ReadonlySet<string>
  /** The recording its router feeds, told of every join and leave; null when the room is not recorded. */
  readonly recording: RoomRecording | null
}

export type RoomEvent =
  | { type: 'JOIN'; member: RoomMember }
  | { type: 'LEAVE'; member: RoomMember }
  | { type: 'SPEAKING_STARTED'; sourceId: number }
  /** From the room's own speaking sweep: these sources' talk spurts ended. */
  | { type: 'SPEAKERS_STOPPED'; ports: readonly SourcePort[] }
  | { type: 'SWEEP' }
  | { type: 'BROADCAST'; event: ServerEvent }
  /** A member switched between per-source frames and the mix: the router splits its receivers again. */
  | { type: 'AUDIO_MODE' }
  /** A member held back at its join (`introducing`) may be sent audio now: the router takes it in. */
  | { type: 'LISTENS' }
  /** The other nodes with members here (cluster): each gets this node's own frames once. */
  | { type: 'REMOTES'; remotes: ReadonlyArray<RemoteSink> }
  /** Its room-agents actor, created after the room opened (an agent or a policy needs one): it hears the roster from now on. */
  | { type: 'AGENTS'; agents: RoomRosterListener }
  /** Start (a recording) or stop (null) recording the room: its router taps frames into it; members are told. */
  | { type: 'RECORDING'; recording: RoomRecording | null }
  | { type: 'CLOSE' }

/** What the room tells whoever hosts it (the workspace actor): its last member left. */
export interface RoomParentEvent {
  readonly type: 'ROOM_EMPTY'
  readonly room: string
}

export type RoomHost = ActorRef<Snapshot<unknown>, RoomParentEvent>

/**
 * Who is in a room, as one immutable value the room builds on every join and leave: what its
 * agents read (`ctx.participants()`, the source of a frame) through its room-agents actor.
 */
export interface RoomRoster {
  /** Everyone in the room in the order they joined: terminals (of every node, in a cluster) and agents. */
  readonly participants: ReadonlyArray<ParticipantInfo>
  /** The same by source id (whose frame this is). */
  readonly bySource: ReadonlyMap<number, ParticipantInfo>
  /** The transport of each terminal, by its participant id (its client id). */
  readonly transports: ReadonlyMap<string, string>
}

export const EMPTY_ROSTER: RoomRoster = { participants: [], bySource: new Map(), transports: new Map() }

/** What the room tells its room-agents actor after every join and leave. */
export interface RoomRosterEvent {
  readonly type: 'ROSTER'
  readonly roster: RoomRoster
  /** Terminals in the room now, and before this join or leave (agents are not counted). */
  readonly terminals: number
  readonly terminalsBefore: number
}

export type RoomRosterListener = ActorRef<Snapshot<unknown>, RoomRosterEvent>

/** Where a room without a host reports: nobody (started: an actor never started would keep what it is sent). */
const noHost: RoomHost = createEmptyActor()
noHost.start()
const noAgents = noHost as unknown as RoomRosterListener // an empty actor takes any event and does nothing with it

/**
 * What the room announces (`actor.on`): how many terminals are in it after a join or a leave, and
 * who started or stopped speaking (once per talk spurt, as its members hear it; never per frame).
 */
export type RoomEmitted =
  | {
      readonly type: 'room.occupancy'
      readonly workspaceId: string
      readonly room: string
      readonly terminals: number
      /** Terminals before this join or leave: 0 → more is the room's first terminal, more → 0 its last leaving. */
      readonly terminalsBefore: number
      /** The member that joined or left (a terminal's id is its client id). */
      readonly member: { readonly id: string; readonly kind: RoomMember['kind'] }
      /** When the terminal count last rose from 0 (engine clock, epoch ms); on the event that empties the room, still that time. */
      readonly occupiedSince: number | null
    }
  | {
      readonly type: 'room.speaking'
      readonly workspaceId: string
      readonly room: string
      readonly participantId: string
      readonly speaking: boolean
    }

export interface RoomInput {
  readonly workspaceId: string
  readonly room: string
  /** Who hears that the room emptied (the workspace actor); none when a room runs on its own. */
  readonly host?: RoomHost
  /** Who hears its roster (its room-agents actor); none when a room runs on its own. */
  readonly agents?: RoomRosterListener
  /**
   * The engine's clock (the system clock when not given): occupiedSince, and the speaking sweep's
   * timers and its measure (`monotonic()`, the time line frames are stamped on).
   */
  readonly clock?: Pick<ClockShape, 'now' | 'monotonic' | 'setTimeout' | 'clearTimeout'>
}

/** How often ended talk spurts are looked for while anyone speaks. */
export const SPEAKING_SWEEP_MS = 100

/**
 * Looks for ended talk spurts every SPEAKING_SWEEP_MS while anyone in the room speaks. A plain
 * timer on the engine clock, not an xstate `after`: a room whose speakers keep talking costs a
 * timer callback per sweep, not an actor step (with its timer cancelled and armed again); the
 * actor hears only of spurts that ended (SPEAKERS_STOPPED). It measures with the clock it arms
 * its timers on (`monotonic()`), so a test moving the clock moves both.
 */
export class SpeakingSweep {
  private timer: Timer | undefined = undefined
  /** Its timer's callback, made the first time anyone speaks: a room nobody talks in keeps none. */
  private tickOnce: (() => void) | null = null
  constructor(
    private readonly clock: Pick<ClockShape, 'monotonic' | 'setTimeout' | 'clearTimeout'>,
    private readonly router: RoomRouter,
    /** Told of the spurts that ended (its room actor): an actor ref, not a closure per room. */
    private readonly room: Pick<ActorRef<Snapshot<unknown>, RoomEvent>, 'send'>,
  ) {}

  /** Sweeping from now on, unless it already is. */
  start(): void {
    if (this.timer === undefined) this.timer = this.clock.setTimeout((this.tickOnce ??= () => this.tick()), SPEAKING_SWEEP_MS)
  }

  stop(): void {
    this.clock.clearTimeout(this.timer)
    this.timer = undefined
  }

  private tick(): void {
    this.timer = undefined
    const ended = this.router.expireSpeakers(this.clock.monotonic())
    // Armed again first: the actor's step for the ended spurts may stop the sweep (nobody speaks).
    if (this.router.anyoneSpeaking) this.start()
    if (ended.length > 0) this.room.send({ type: 'SPEAKERS_STOPPED', ports: ended })
  }
}

/** What its router tells the room: a talk spurt started, a held member was introduced (an object, not closures per room). */
class RoomHooks implements RouterHooks {
  constructor(private readonly room: Pick<ActorRef<Snapshot<unknown>, RoomEvent>, 'send'>) {}
  speakingStarted(port: SourcePort): void {
    this.room.send({ type: 'SPEAKING_STARTED', sourceId: port.sourceId })
  }
  listens(): void {
    this.room.send({ type: 'LISTENS' })
  }
}

const recordingEvent = (room: string, r: RoomRecording): ServerEvent => ({ type: 'room.recording', room, recording: true, recordingId: r.recordingId, tracks: r.tracks })

const isTerminal = (m: RoomMember): number => (m.kind === 'terminal' ? 1 : 0)

/**
 * `speaking` while nobody speaks: one empty set all such rooms share (~180 B less per room). Never
 * edited: every change of `speaking` makes a new set.
 */
const NOBODY_SPEAKING: ReadonlySet<string> = new Set()

/** The set without these ids (the same set when it holds none of them; the shared empty one when none is left). */
const without = (set: ReadonlySet<string>, ids: ReadonlyArray<string>): ReadonlySet<string> => {
  if (!ids.some((id) => set.has(id))) return set
  const next = new Set(set)
  for (const id of ids) next.delete(id)
  return next.size === 0 ? NOBODY_SPEAKING : next
}

const participants = (members: ReadonlyMap<string, MemberEntry>, except?: string): ParticipantInfo[] =>
  [...members.values()].filter((e) => e.member.id !== except).map((e) => e.info)

const broadcast = (members: ReadonlyMap<string, MemberEntry>, event: ServerEvent, except?: string) => {
  for (const e of members.values()) if (e.member.id !== except) e.member.sendEvent(event)
}

/** The roster of these members (built once per join or leave; agents read it, never edit it). */
const rosterOf = (members: ReadonlyMap<string, MemberEntry>): RoomRoster => {
  if (members.size === 0) return EMPTY_ROSTER
  const list: ParticipantInfo[] = []
  const bySource = new Map<number, ParticipantInfo>()
  const transports = new Map<string, string>()
  for (const { info, member } of members.values()) {
    list.push(info)
    bySource.set(info.sourceId, info)
    if (member.kind === 'terminal' && member.transport) transports.set(info.id, member.transport)
  }
  return { participants: list, bySource, transports }
}

/**
 * The roster when someone reads it: its room-agents actor or its recording. A room with neither
 * builds none (no work per join for agents or recordings it has not).
 */
const rosterFor = (context: RoomContext, members: ReadonlyMap<string, MemberEntry>): RoomRoster =>
  context.agents === null && context.recording === null ? EMPTY_ROSTER : rosterOf(members)

const speakerOf = (context: RoomContext, sourceId: number): MemberEntry | undefined =>
  [...context.members.values()].find((e) => e.port.sourceId === sourceId)

/**
 * A member as its room's router sees it. A class, not an object literal with a getter: the getter
 * sits on the prototype instead of a closure and an accessor pair on every sink of every member.
 */
class MemberSink implements AudioSink {
  readonly sourceId: number
  readonly deliver: (frame: Uint8Array) => void
  readonly fanout: FanoutReceiver | null
  constructor(private readonly member: RoomMember, port: SourcePort) {
    this.sourceId = port.sourceId
    this.deliver = member.audioSink ?? ((f: Uint8Array) => member.deliver(f))
    this.fanout = member.fanout ?? null
  }
  /** Re-read by the router when a member switches mode (RoomRouter.refreshAudioModes). */
  get audioMode(): AudioMode | undefined {
    return this.member.audioMode
  }
}

const rebuildSinks = (router: RoomRouter, members: ReadonlyMap<string, MemberEntry>) =>
  router.setSinks([...members.values()].filter((e) => e.member.listens !== false && e.member.introducing !== true).map((e) => new MemberSink(e.member, e.port)))

/** Next free source id in 1..65535 (0 means "mixed by the server"). */
const allocateSourceId = (members: ReadonlyMap<string, MemberEntry>, next: number): number => {
  const used = new Set([...members.values()].map((e) => e.port.sourceId))
  let id = next
  while (used.has(id)) id = (id % 65535) + 1
  return id
}

export const roomMachine = setup({
  types: {
    context: {} as RoomContext,
    events: {} as RoomEvent,
    input: {} as RoomInput,
    emitted: {} as RoomEmitted,
  },
  actions: {
    addMember: assign(({ context, event }) => {
      assertEvent(event, 'JOIN')
      const members = new Map(context.members)
      const previous = members.get(event.member.id)
      if (previous) {
        // A member joining again (an agent re-dispatched under the same identity) replaces itself.
        context.router.removeSource(previous.port.sourceId)
        members.delete(event.member.id)
      }
      const sourceId = allocateSourceId(members, context.nextSourceId)
      const port = context.router.addSource(sourceId)
      const info: ParticipantInfo = { id: event.member.id, kind: event.member.kind, sourceId, name: event.member.name }
      members.set(event.member.id, { member: event.member, port, info })
      const terminals = context.terminals + isTerminal(event.member) - (previous ? isTerminal(previous.member) : 0)
      const occupiedSince = context.terminals === 0 && terminals > 0 ? context.clock.now() : context.occupiedSince
      const speaking = previous ? without(context.speaking, [event.member.id]) : context.speaking
      return {
        members, terminals, terminalsBefore: context.terminals, occupiedSince, nextSourceId: (sourceId % 65535) + 1, speaking,
        roster: rosterFor(context, members),
      }
    }),
    announceJoin: ({ context, event }) => {
      assertEvent(event, 'JOIN')
      const entry = context.members.get(event.member.id)!
      // Order matters: the member learns its room before any audio of it arrives.
      entry.member.joined(context.room, entry.port, participants(context.members, entry.member.id))
      // Roster before sinks: the recording has the member's track before its first frame.
      context.recording?.roster(context.roster.participants)
      rebuildSinks(context.router, context.members)
      broadcast(context.members, { type: 'participant.joined', room: context.room, participant: entry.info }, entry.member.id)
      if (context.recording) entry.member.sendEvent(recordingEvent(context.room, context.recording))
    },
    announceLeave: ({ context, event }) => {
      assertEvent(event, 'LEAVE')
      const entry = context.members.get(event.member.id)!
      const remaining = new Map(context.members)
      remaining.delete(event.member.id)
      context.router.removeSource(entry.port.sourceId)
      rebuildSinks(context.router, remaining)
      context.recording?.roster(participants(remaining))
      broadcast(remaining, { type: 'participant.left', room: context.room, participant: entry.info })
    },
    removeMember: assign(({ context, event }) => {
      assertEvent(event, 'LEAVE')
      const members = new Map(context.members)
      members.delete(event.member.id)
      return {
        members,
        terminals: context.terminals - isTerminal(event.member),
        terminalsBefore: context.terminals,
        speaking: without(context.speaking, [event.member.id]),
        roster: rosterFor(context, members),
      }
    }),
    // The members hear it and so does whoever subscribed (emit). Both declared here, not built
    // per event with enqueueActions: SPEAKING_STARTED comes from the data plane, which may run
    // inside another actor's custom action, and xstate's development build warns about an action
    // object built then (xstate issue #5343). The transition's guard made sure the source is a member.
    tellSpeakingStarted: ({ context, event }) => {
      assertEvent(event, 'SPEAKING_STARTED')
      const { room, members } = context
      broadcast(members, { type: 'speaking.started', room, participantId: speakerOf(context, event.sourceId)!.member.id, sourceId: event.sourceId })
    },
    markSpeaking: assign(({ context, event }) => {
      assertEvent(event, 'SPEAKING_STARTED')
      return { speaking: new Set(context.speaking).add(speakerOf(context, event.sourceId)!.member.id) }
    }),
    markStopped: assign(({ context, event }) => {
      assertEvent(event, 'SPEAKERS_STOPPED')
      const ids = [...context.members.values()].filter((e) => event.ports.includes(e.port)).map((e) => e.member.id)
      return { speaking: without(context.speaking, ids) }
    }),
    announceSpeakingStarted: emit(({ context, event }) => {
      assertEvent(event, 'SPEAKING_STARTED')
      const { workspaceId, room } = context
      return { type: 'room.speaking' as const, workspaceId, room, participantId: speakerOf(context, event.sourceId)!.member.id, speaking: true }
    }),
    // Built per event (a sweep may end several spurts), which is safe: only this room's own sweep sends it.
    announceSpeakersStopped: enqueueActions(({ context, event, enqueue }) => {
      assertEvent(event, 'SPEAKERS_STOPPED')
      const { workspaceId, room, members } = context
      for (const port of event.ports) {
        const entry = [...members.values()].find((e) => e.port === port)
        if (!entry) continue
        const participantId = entry.member.id
        enqueue(() => broadcast(members, { type: 'speaking.stopped', room, participantId, sourceId: port.sourceId }))
        enqueue.emit({ type: 'room.speaking', workspaceId, room, participantId, speaking: false })
      }
    }),
    relay: ({ context, event }) => {
      assertEvent(event, 'BROADCAST')
      broadcast(context.members, event.event)
    },
    // The sinks read a member's audioMode through a getter: the router only needs to split them again.
    splitAudioModes: ({ context }) => context.router.refreshAudioModes(),
    takeListener: ({ context }) => rebuildSinks(context.router, context.members),
    attachAgents: assign(({ context, event }) => {
      assertEvent(event, 'AGENTS')
      return { agents: event.agents, roster: rosterOf(context.members) }
    }),
    setRemotes: ({ context, event }) => {
      assertEvent(event, 'REMOTES')
      context.router.setRemotes(event.remotes)
    },
    announceOccupancy: emit(({ context, event }) => {
      assertEvent(event, ['JOIN', 'LEAVE'])
      return {
        type: 'room.occupancy' as const,
        workspaceId: context.workspaceId,
        room: context.room,
        terminals: context.terminals,
        terminalsBefore: context.terminalsBefore,
        member: { id: event.member.id, kind: event.member.kind },
        occupiedSince: context.occupiedSince,
      }
    }),
    // Delivered after this room's step (before the host hears that it emptied): the room's agents read the roster there.
    tellAgents: sendTo(
      ({ context }) => context.agents ?? noAgents,
      ({ context }): RoomRosterEvent => ({ type: 'ROSTER', roster: context.roster, terminals: context.terminals, terminalsBefore: context.terminalsBefore }),
    ),
    // Delivered after this room's step, so the host sees the room already empty.
    reportEmpty: sendTo(({ context }) => context.host ?? noHost, ({ context }): RoomParentEvent => ({ type: 'ROOM_EMPTY', room: context.room })),
    startSweep: ({ context }) => context.sweep.start(),
    stopSweep: ({ context }) => context.sweep.stop(),
    dispose: ({ context }) => context.router.dispose(),
    setRecording: assign(({ context, event }) => {
      assertEvent(event, 'RECORDING')
      const { recording } = event
      if (recording === context.recording) return {}
      // A room that built no roster (no room-agents actor, no recording until now) builds it here.
      const roster = recording && context.roster === EMPTY_ROSTER && context.members.size > 0 ? rosterOf(context.members) : context.roster
      recording?.roster(roster.participants)
      context.router.setRecorder(recording)
      const told = recording ?? context.recording
      if (told) broadcast(context.members, recording ? recordingEvent(context.room, recording) : { type: 'room.recording', room: context.room, recording: false, recordingId: told.recordingId, tracks: told.tracks })
      return { recording, roster }
    }),
  },
  guards: {
    knownSpeaker: ({ context, event }) => {
      assertEvent(event, 'SPEAKING_STARTED')
      return speakerOf(context, event.sourceId) !== undefined
    },
    lastMemberLeaves: ({ context, event }) => {
      assertEvent(event, 'LEAVE')
      return context.members.size === 1 && context.members.get(event.member.id)?.member === event.member
    },
    // Only the member object that joined can leave: a replaced session must not evict its successor.
    isMember: ({ context, event }) => {
      assertEvent(event, 'LEAVE')
      return context.members.get(event.member.id)?.member === event.member
    },
    nobodySpeaking: ({ context }) => !context.router.anyoneSpeaking,
  },
}).createMachine({
  id: 'room',
  context: ({ input, self }) => {
    const router = new RoomRouter(input.room, new RoomHooks(self))
    const clock = input.clock ?? systemClock
    return {
      workspaceId: input.workspaceId,
      room: input.room,
      router,
      members: new Map(),
      terminals: 0,
      terminalsBefore: 0,
      occupiedSince: null,
      nextSourceId: 1,
      clock,
      host: input.host ?? null,
      agents: input.agents ?? null,
      roster: EMPTY_ROSTER,
      sweep: new SpeakingSweep(clock, router, self),
      speaking: NOBODY_SPEAKING,
      recording: null,
    }
  },
  initial: 'empty',
  on: {
    BROADCAST: { actions: 'relay' },
    AUDIO_MODE: { actions: 'splitAudioModes' },
    LISTENS: { actions: 'takeListener' },
    REMOTES: { actions: 'setRemotes' },
    AGENTS: { actions: ['attachAgents', 'tellAgents'] },
    RECORDING: { actions: 'setRecording' },
    CLOSE: { target: '.closed' },
  },
  states: {
    empty: {
      on: {
        JOIN: { target: 'occupied', actions: ['addMember', 'announceJoin', 'announceOccupancy', 'tellAgents'] },
      },
    },
    occupied: {
      initial: 'quiet',
      on: {
        JOIN: { actions: ['addMember', 'announceJoin', 'announceOccupancy', 'tellAgents'] },
        LEAVE: [
          { guard: 'lastMemberLeaves', target: 'empty', actions: ['announceLeave', 'removeMember', 'announceOccupancy', 'tellAgents', 'reportEmpty'] },
          { guard: 'isMember', actions: ['announceLeave', 'removeMember', 'announceOccupancy', 'tellAgents'] },
        ],
      },
      states: {
        quiet: {
          on: {
            SPEAKING_STARTED: [
              { guard: 'knownSpeaker', target: 'speaking', actions: ['markSpeaking', 'tellSpeakingStarted', 'announceSpeakingStarted'] },
              { target: 'speaking' },
            ],
          },
        },
        speaking: {
          entry: 'startSweep',
          exit: 'stopSweep',
          on: {
            // The sweep may have stopped since this state was entered (its speaker left mid-spurt): start it again.
            SPEAKING_STARTED: { guard: 'knownSpeaker', actions: ['markSpeaking', 'tellSpeakingStarted', 'announceSpeakingStarted', 'startSweep'] },
            SPEAKERS_STOPPED: [
              { guard: 'nobodySpeaking', target: 'quiet', actions: ['markStopped', 'announceSpeakersStopped'] },
              { actions: ['markStopped', 'announceSpeakersStopped'] },
            ],
          },
        },
      },
    },
    closed: { type: 'final', entry: 'dispose' },
  },
})
