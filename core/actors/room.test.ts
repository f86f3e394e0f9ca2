import { describe, expect, it } from 'vitest'
import { createActor, fromCallback } from 'xstate'
import { ManualClock } from '../clock.js'
import type { SourcePort } from '../dataplane/roomRouter.js'
import type { AudioMode, ParticipantInfo, ServerEvent } from '../events.js'
import { roomMachine, type RoomMember, type RoomParentEvent } from './room.js'
import { RoomRecorder } from '../recordings/roomRecorder.js'
import { tempDir, uplink } from '../test/helpers.js'

const T0 = Date.parse('2026-11-20T12:00:00Z')

const member = (id: string, kind: 'terminal' | 'agent' = 'terminal') => {
  const m = {
    id, kind, name: null,
    frames: [] as Uint8Array[],
    events: [] as ServerEvent[],
    port: null as SourcePort | null,
    joinedWith: [] as ReadonlyArray<ParticipantInfo>,
    deliver(f: Uint8Array) { m.frames.push(f) },
    sendEvent(e: ServerEvent) { m.events.push(e) },
    joined(_room: string, port: SourcePort, participants: ReadonlyArray<ParticipantInfo>) {
      m.port = port
      m.joinedWith = participants
    },
  }
  return m satisfies RoomMember
}

/** A room on a manual clock: its sweep's timers and its measure (the clock's monotonic time) move only when told. */
const startRoom = () => {
  const clock = new ManualClock(0)
  const ref = createActor(roomMachine, { clock, input: { workspaceId: 'ws', room: 'lobby', clock } })
  ref.start()
  return { ref, clock }
}

describe('room actor', () => {
  it('walks empty -> occupied -> empty -> closed, assigning source ids and telling members', () => {
    const { ref } = startRoom()
    expect(ref.getSnapshot().value).toBe('empty')
    const a = member('a')
    const b = member('b')
    ref.send({ type: 'JOIN', member: a })
    expect(ref.getSnapshot().matches('occupied')).toBe(true)
    expect(a.port?.sourceId).toBe(1)
    expect(a.joinedWith).toEqual([])
    ref.send({ type: 'JOIN', member: b })
    expect(b.port?.sourceId).toBe(2)
    expect(b.joinedWith).toEqual([{ id: 'a', kind: 'terminal', sourceId: 1, name: null }])
    expect(a.events).toContainEqual({
      type: 'participant.joined', room: 'lobby', participant: { id: 'b', kind: 'terminal', sourceId: 2, name: null },
    })
    ref.send({ type: 'LEAVE', member: b })
    expect(a.events).toContainEqual({
      type: 'participant.left', room: 'lobby', participant: { id: 'b', kind: 'terminal', sourceId: 2, name: null },
    })
    expect(ref.getSnapshot().matches('occupied')).toBe(true)
    ref.send({ type: 'LEAVE', member: a })
    expect(ref.getSnapshot().value).toBe('empty')
    const { router } = ref.getSnapshot().context
    ref.send({ type: 'CLOSE' })
    expect(ref.getSnapshot().status).toBe('done')
    expect(ref.getSnapshot().value).toBe('closed')
    // Its router went with it: a port kept by a member routes nothing.
    expect(router.hasMixer).toBe(false)
    expect(a.port!.attached).toBe(false)
  })

  it('closes while occupied too (shutdown): every port is detached', () => {
    const { ref } = startRoom()
    const [a, b] = [member('a'), member('b')]
    ref.send({ type: 'JOIN', member: a })
    ref.send({ type: 'JOIN', member: b })
    ref.send({ type: 'CLOSE' })
    expect(ref.getSnapshot().value).toBe('closed')
    a.port!.router.forward(a.port!, uplink([1]), 0)
    expect(b.frames).toHaveLength(0)
  })

  it('routes frames to every other member, byte-identical, with the source header', () => {
    const { ref } = startRoom()
    const [a, b, c] = [member('a'), member('b'), member('c')]
    for (const m of [a, b, c]) ref.send({ type: 'JOIN', member: m })
    a.port!.router.forward(a.port!, uplink([1, 2, 3]), 0)
    expect(a.frames).toHaveLength(0)
    for (const m of [b, c]) expect([...m.frames[0]!]).toEqual([0x01, 0x80 | 20, 0, 1, 0, 0, 1, 2, 3])
    a.port!.router.forward(a.port!, uplink([4]), 0)
    expect([...b.frames[1]!]).toEqual([0x01, 0x80 | 20, 0, 1, 0, 1, 4])
  })

  it('stops routing a member that left, even through its stale port', () => {
    const { ref } = startRoom()
    const [a, b] = [member('a'), member('b')]
    ref.send({ type: 'JOIN', member: a })
    ref.send({ type: 'JOIN', member: b })
    const stale = a.port!
    ref.send({ type: 'LEAVE', member: a })
    stale.router.forward(stale, uplink([9]), 0)
    expect(b.frames).toHaveLength(0)
  })

  it('ignores a LEAVE from a member object that was replaced under the same id', () => {
    const { ref } = startRoom()
    const old = member('a')
    const fresh = member('a')
    const b = member('b')
    ref.send({ type: 'JOIN', member: old })
    ref.send({ type: 'JOIN', member: b })
    ref.send({ type: 'JOIN', member: fresh })
    ref.send({ type: 'LEAVE', member: old })
    expect([...ref.getSnapshot().context.members.keys()].sort()).toEqual(['a', 'b'])
    fresh.port!.router.forward(fresh.port!, uplink([7]), 0)
    expect(b.frames).toHaveLength(1)
  })

  it('reports speaking started and stopped from voice activity, to its members and to its subscribers', () => {
    const { ref, clock } = startRoom()
    const announced: string[] = []
    ref.on('room.speaking', (e) => announced.push(`${e.workspaceId}/${e.room} ${e.participantId} ${e.speaking}`))
    const [a, b] = [member('a'), member('b')]
    ref.send({ type: 'JOIN', member: a })
    ref.send({ type: 'JOIN', member: b })
    const port = a.port!
    port.router.forward(port, uplink([1], 0x7f), 0) // silent
    port.router.forward(port, uplink([1], 0x80 | 30), 20)
    expect(b.events.some((e) => e.type === 'speaking.started')).toBe(false)
    port.router.forward(port, uplink([1], 0x80 | 30), 40)
    expect(b.events).toContainEqual({ type: 'speaking.started', room: 'lobby', participantId: 'a', sourceId: 1 })
    expect(announced).toEqual(['ws/lobby a true'])
    expect(ref.getSnapshot().matches({ occupied: 'speaking' })).toBe(true)
    // The sweep runs every 100 ms while anyone speaks; the spurt ends once its hangover is over.
    clock.advance(100)
    expect(b.events.some((e) => e.type === 'speaking.stopped')).toBe(false)
    expect(ref.getSnapshot().matches({ occupied: 'speaking' })).toBe(true)
    clock.advance(2000)
    expect(b.events.filter((e) => e.type === 'speaking.stopped')).toEqual([
      { type: 'speaking.stopped', room: 'lobby', participantId: 'a', sourceId: 1 },
    ])
    expect(announced).toEqual(['ws/lobby a true', 'ws/lobby a false'])
    expect(ref.getSnapshot().matches({ occupied: 'quiet' })).toBe(true)
    expect(clock.pendingTimers).toBe(0)
  })

  it('takes no actor step per sweep while its speakers keep talking: it hears only of spurts that ended', () => {
    const clock = new ManualClock(0)
    const events: string[] = []
    const ref = createActor(roomMachine, {
      clock,
      input: { workspaceId: 'ws', room: 'lobby', clock },
      inspect: (e) => {
        if (e.type === '@xstate.event' && e.actorRef === ref) events.push(e.event.type)
      },
    })
    ref.start()
    const [a, b] = [member('a'), member('b')]
    ref.send({ type: 'JOIN', member: a })
    ref.send({ type: 'JOIN', member: b })
    const port = a.port!
    // Two seconds of continuous speech, a frame every 20 ms: 20 sweeps go by.
    for (let t = 0; t <= 2000; t += 20) {
      port.router.forward(port, uplink([1], 0x80 | 30), t)
      clock.advance(20)
    }
    expect(ref.getSnapshot().matches({ occupied: 'speaking' })).toBe(true)
    expect(events.filter((t) => t !== 'JOIN' && !t.startsWith('xstate.init'))).toEqual(['SPEAKING_STARTED'])
    clock.advance(2000)
    expect(events.filter((t) => t !== 'JOIN' && !t.startsWith('xstate.init'))).toEqual(['SPEAKING_STARTED', 'SPEAKERS_STOPPED'])
    expect(b.events.filter((e) => e.type === 'speaking.stopped')).toHaveLength(1)
    expect(ref.getSnapshot().matches({ occupied: 'quiet' })).toBe(true)
    expect(clock.pendingTimers).toBe(0)
  })

  it('holds who is speaking in its snapshot, as it announced it: on at the start of a spurt, off at its end or when the speaker leaves', () => {
    const { ref, clock } = startRoom()
    const speaking = () => [...ref.getSnapshot().context.speaking].sort()
    const [a, b, c] = [member('a'), member('b'), member('c')]
    for (const m of [a, b, c]) ref.send({ type: 'JOIN', member: m })
    expect(speaking()).toEqual([])
    const talk = (m: typeof a, t: number) => m.port!.router.forward(m.port!, uplink([1], 0x80 | 30), t)
    talk(a, 0)
    talk(a, 20)
    talk(b, 20)
    talk(b, 40)
    expect(speaking()).toEqual(['a', 'b'])
    // b keeps talking; a's spurt ends.
    for (let t = 60; t <= 1500; t += 20) {
      talk(b, t)
      clock.advance(20)
    }
    expect(speaking()).toEqual(['b'])
    // b leaves mid-spurt: it is no longer speaking in the room.
    ref.send({ type: 'LEAVE', member: b })
    expect(speaking()).toEqual([])
  })

  it('shares one empty speaking set between quiet rooms, and a spurt in one shows in that room only, before and after it ends', () => {
    const one = startRoom()
    const two = startRoom()
    const [a, b] = [member('a'), member('b')]
    one.ref.send({ type: 'JOIN', member: a })
    two.ref.send({ type: 'JOIN', member: b })
    const speaking = (r: typeof one) => r.ref.getSnapshot().context.speaking
    expect(speaking(one)).toBe(speaking(two))
    expect(one.clock.pendingTimers).toBe(0)
    const talk = (m: typeof a, t: number) => m.port!.router.forward(m.port!, uplink([1], 0x80 | 30), t)
    talk(a, 0)
    talk(a, 20)
    expect([...speaking(one)]).toEqual(['a'])
    expect([...speaking(two)]).toEqual([])
    one.clock.advance(3000)
    expect(a.events.filter((e) => e.type === 'speaking.stopped')).toHaveLength(1)
    expect([...speaking(one)]).toEqual([])
    expect(speaking(one)).toBe(speaking(two))
    // Its sweep runs again for a later spurt (its timer's callback is made once, on the first).
    talk(a, 3100)
    talk(a, 3120)
    expect([...speaking(one)]).toEqual(['a'])
    one.clock.advance(3000)
    expect(a.events.filter((e) => e.type === 'speaking.stopped')).toHaveLength(2)
    expect(one.clock.pendingTimers).toBe(0)
  })

  it('still ends a spurt that starts after a speaker left mid-spurt (the sweep runs again)', () => {
    const { ref, clock } = startRoom()
    const [a, b, c] = [member('a'), member('b'), member('c')]
    for (const m of [a, b, c]) ref.send({ type: 'JOIN', member: m })
    const talk = (m: typeof a, t: number) => m.port!.router.forward(m.port!, uplink([1], 0x80 | 30), t)
    talk(a, 0)
    talk(a, 20)
    ref.send({ type: 'LEAVE', member: a })
    // The sweep finds nobody speaking and stops; then b talks.
    clock.advance(200)
    talk(b, 200)
    talk(b, 220)
    expect([...ref.getSnapshot().context.speaking]).toEqual(['b'])
    clock.advance(3000)
    expect(c.events.filter((e) => e.type === 'speaking.stopped')).toEqual([{ type: 'speaking.stopped', room: 'lobby', participantId: 'b', sourceId: 2 }])
    expect([...ref.getSnapshot().context.speaking]).toEqual([])
    expect(ref.getSnapshot().matches({ occupied: 'quiet' })).toBe(true)
    expect(clock.pendingTimers).toBe(0)
  })

  it('announces its terminal count on every join and leave, and tells its host when it empties', () => {
    const told: string[] = []
    // The host stand-in: an actor that records what it is told.
    const host = createActor(fromCallback<RoomParentEvent>(({ receive }) => receive((e) => told.push(`${e.type} ${e.room}`)))).start()
    const ref = createActor(roomMachine, { input: { workspaceId: 'ws', room: 'r', host } })
    const counts: number[] = []
    ref.on('room.occupancy', (e) => counts.push(e.terminals))
    ref.start()
    const [a, b, bot] = [member('a'), member('b'), member('bot', 'agent')]
    ref.send({ type: 'JOIN', member: a })
    ref.send({ type: 'JOIN', member: bot })
    ref.send({ type: 'JOIN', member: b })
    ref.send({ type: 'LEAVE', member: a })
    ref.send({ type: 'LEAVE', member: b })
    expect(ref.getSnapshot().context.terminals).toBe(0)
    expect(told).toEqual([])
    ref.send({ type: 'LEAVE', member: bot })
    // A stale LEAVE (a member that is not there) changes and tells nothing.
    ref.send({ type: 'LEAVE', member: a })
    expect(counts).toEqual([1, 1, 2, 1, 0, 0])
    expect(told).toEqual(['ROOM_EMPTY r'])
  })

  it('says with each count what it was before, who joined or left, and since when it has had terminals', () => {
    const clock = new ManualClock(T0)
    const ref = createActor(roomMachine, { clock, input: { workspaceId: 'ws', room: 'r', clock } })
    const seen: string[] = []
    ref.on('room.occupancy', (e) => seen.push(`${e.member.kind} ${e.member.id} ${e.terminalsBefore}->${e.terminals} since ${e.occupiedSince === null ? null : e.occupiedSince - T0}`))
    ref.start()
    const [a, b, bot] = [member('a'), member('b'), member('bot', 'agent')]
    ref.send({ type: 'JOIN', member: bot }) // an agent alone: no terminal yet
    clock.advance(1000)
    ref.send({ type: 'JOIN', member: a })
    clock.advance(1000)
    ref.send({ type: 'JOIN', member: b })
    ref.send({ type: 'LEAVE', member: a })
    clock.advance(1000)
    ref.send({ type: 'LEAVE', member: b })
    clock.advance(1000)
    ref.send({ type: 'JOIN', member: a })
    expect(seen).toEqual([
      'agent bot 0->0 since null',
      'terminal a 0->1 since 1000',
      'terminal b 1->2 since 1000',
      'terminal a 2->1 since 1000',
      // The event that empties the room still says when it filled.
      'terminal b 1->0 since 1000',
      'terminal a 0->1 since 4000',
    ])
  })

  it('writes its own router when told: the other nodes its frames go to (REMOTES), a member\'s change of audio mode (AUDIO_MODE)', () => {
    const { ref } = startRoom()
    const a = member('a')
    const b = Object.assign(member('b'), { audioMode: 'forward' as AudioMode })
    ref.send({ type: 'JOIN', member: a })
    ref.send({ type: 'JOIN', member: b })
    const { router } = ref.getSnapshot().context
    const sent: number[] = []
    ref.send({ type: 'REMOTES', remotes: [{ send: (sourceId) => sent.push(sourceId) }] })
    router.forward(a.port!, uplink([1, 2, 3]), 0)
    // A frame relayed from another node is this node's to deliver only: it is not sent on.
    router.forwardRelayed(b.port!, uplink([4, 5, 6]), 0)
    expect(sent).toEqual([1])
    expect(b.frames).toHaveLength(1)
    ref.send({ type: 'REMOTES', remotes: [] })
    router.forward(a.port!, uplink([1, 2, 3]), 20)
    expect(sent).toEqual([1])

    b.audioMode = 'mixed'
    expect(router.hasMixer).toBe(false)
    ref.send({ type: 'AUDIO_MODE' })
    expect(router.hasMixer).toBe(true)
    ref.send({ type: 'CLOSE' })
  })
})

describe('room actor: recording (RECORDING)', () => {
  it('taps its router into the recording, feeds it every join and leave, and tells members, joiners included', async () => {
    const dir = tempDir('hark-room-rec-')
    try {
      const { ref } = startRoom()
      const a = member('a')
      ref.send({ type: 'JOIN', member: a })
      const tracks: string[][] = []
      const recorder = new RoomRecorder({
        recordingId: 'rec_room', room: 'lobby', tracks: 'per-participant', dir: dir.path, minFreeBytes: 0,
        failed: () => {}, tracksChanged: (t) => tracks.push(t.map((x) => `${x.name}=${x.participantId}`)),
      })
      await recorder.start()
      ref.send({ type: 'RECORDING', recording: recorder })
      const told = { type: 'room.recording', room: 'lobby', recording: true, recordingId: 'rec_room', tracks: 'per-participant' }
      expect(a.events).toContainEqual(told)
      const b = member('b')
      ref.send({ type: 'JOIN', member: b })
      expect(b.events).toContainEqual(told)
      expect(tracks.at(-1)).toEqual(['p1=a', 'p2=b'])
      a.port!.router.forward(a.port!, uplink([0x78, 1, 2]), performance.now())
      b.port!.router.forward(b.port!, uplink([0x78, 3]), performance.now())
      expect(recorder.framesRecorded).toBe(2)
      // Stopped: members hear it, frames no longer reach the recording.
      ref.send({ type: 'RECORDING', recording: null })
      expect(b.events.at(-1)).toEqual({ ...told, recording: false })
      a.port!.router.forward(a.port!, uplink([0x78, 4]), performance.now())
      expect(recorder.framesRecorded).toBe(2)
      expect(b.frames).toHaveLength(2) // the room forwarded all along
      await recorder.stop()
    } finally {
      dir.remove()
    }
  })
})
