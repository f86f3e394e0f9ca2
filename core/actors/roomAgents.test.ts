/**
 * The room-agents actor inside a workspace actor, on a manual clock, with a stand-in agent runtime:
 * which agents a room has and why, the stop delay when it empties, two policies in one room, the
 * roster the agents read following joins, leaves and moves, and the room's owner moving away.
 */
import { describe, expect, it } from 'vitest'
import { createActor } from 'xstate'
import { ManualClock } from '../clock.js'
import { Session } from '../session.js'
import { RecordingLink, terminalIdentity } from '../test/helpers.js'
import type { RoomMember } from './room.js'
import type { AgentReason, PolicyJoin, PolicyLaunch, RoomAgentHandle, RoomAgentPolicy, RoomAgentState, RoomAgentsView } from './roomAgents.js'
import { liveAgents, policiesMayWant } from './roomAgents.js'
import { roomAgentsOf, stopWorkspace, workspaceMachine } from './workspace.js'

const WS = 'ws_1'

/** A stand-in agent: it runs at once, and ends when stopped (telling its room's actor, as the runtime does). */
class FakeAgent implements RoomAgentHandle {
  state: RoomAgentState = 'running'
  stoppedFor: string | null = null
  constructor(
    readonly agentId: string,
    readonly identity: string,
    private readonly ended: (agent: FakeAgent) => void,
  ) {}
  async stop(reason: string): Promise<void> {
    if (this.state !== 'running') return
    this.state = 'stopped'
    this.stoppedFor = reason
    this.ended(this)
  }
}

/** A policy that wants an agent while `wants(view)` says so; `key` says what (a change replaces it). */
const policy = (name: string, reason: Exclude<AgentReason, 'dispatched'>, stopDelayMs: number, wants: (v: RoomAgentsView) => string | null): RoomAgentPolicy => ({
  name,
  reason,
  replacedReason: `${name} changed`,
  want: (view) => {
    const key = wants(view)
    return key === null ? null : { key, request: { presetId: key }, stopDelayMs }
  },
})

const start = (policies: RoomAgentPolicy[]) => {
  const clock = new ManualClock(Date.parse('2026-12-01T12:00:00Z'))
  const agents: FakeAgent[] = []
  const launches: PolicyLaunch[] = []
  let owns = true
  let refuse = false
  let n = 0
  const ended = (agent: FakeAgent, room: string) => ws.send({ type: 'ROOM_AGENTS', room, event: { type: 'AGENT_ENDED', agentId: agent.agentId } })
  /** Register an agent with its room's actor, as the dispatcher does. */
  const add = (room: string, reason: AgentReason, launch: PolicyLaunch | null = null) => {
    const agent = new FakeAgent(`ag_${++n}`, `agent@${launch?.request.presetId ?? 'api'}`, (a) => ended(a, room))
    agents.push(agent)
    const entry = { agent, reason, policy: launch?.policy ?? null, stopDelayMs: launch?.stopDelayMs ?? null }
    ws.send({ type: 'ROOM_AGENTS', room, event: { type: 'AGENT_ADDED', entry, key: launch?.key ?? null }, open: true })
    return agent
  }
  const runtime = {
    policies: () => policies,
    mayWant: (joining: PolicyJoin) => policiesMayWant(policies, joining),
    runsPolicies: () => owns,
    launch: (launch: PolicyLaunch) => {
      if (refuse) return false
      launches.push(launch)
      add(launch.room, launch.reason, launch)
      return true
    },
  }
  const ws = createActor(workspaceMachine, { clock, input: { workspaceId: WS, clock, agents: runtime } }).start()
  const open = (clientId: string, room: string | null, transport = 'websocket') => {
    const session = new Session(terminalIdentity(clientId, { workspaceId: WS, room }), new RecordingLink(transport), clock, 'forward')
    ws.send({ type: 'SESSION_OPEN', session, room, expiresAt: null })
    return session
  }
  const end = (session: Session) => session.end()
  const roomAgents = (room: string) => roomAgentsOf(ws.getSnapshot().context, room)
  const roster = (room: string) => roomAgents(room)?.getSnapshot().context.roster
  const live = (room: string) => {
    const ref = roomAgents(room)
    return ref ? liveAgents(ref.getSnapshot().context).map((e) => `${e.reason} ${e.agent.identity}`) : []
  }
  /** The starts and stops the actor left for after its step (microtasks). */
  const settle = async () => {
    for (let i = 0; i < 5; i++) await Promise.resolve()
  }
  return { clock, ws, agents, launches, open, end, add, roomAgents, roster, live, settle, setOwns: (v: boolean) => (owns = v), refuse: () => (refuse = true) }
}

describe('room-agents actor', () => {
  it('holds why each agent is there; stops a policy agent the stop delay after the last terminal left, not a moment before, and a dispatched one never', async () => {
    const r = start([policy('default', 'default', 60_000, () => 'greeter')])
    const dispatched = r.add('lobby', 'dispatched')
    const a = r.open('a', 'lobby')
    await r.settle()
    expect(r.live('lobby')).toEqual(['dispatched agent@api', 'default agent@greeter'])
    expect(r.launches.map((l) => [l.policy, l.reason, l.key, l.stopDelayMs])).toEqual([['default', 'default', 'greeter', 60_000]])
    const [, greeter] = r.agents

    r.end(a)
    r.clock.advance(59_999)
    // Back in time: the stop is called off, and the policy's agent is not started twice (one per occupancy cycle).
    const back = r.open('a', 'lobby')
    await r.settle()
    r.clock.advance(60_000)
    await r.settle()
    expect(greeter!.state).toBe('running')
    expect(r.launches).toHaveLength(1)

    r.end(back)
    r.clock.advance(59_999)
    await r.settle()
    expect(greeter!.state).toBe('running')
    r.clock.advance(1)
    await r.settle()
    expect(greeter!.stoppedFor).toBe('room empty')
    expect(dispatched.state).toBe('running')
    expect(r.live('lobby')).toEqual(['dispatched agent@api'])
    expect(r.clock.pendingTimers).toBe(0)

    // The room fills anew: a new occupancy cycle, a new agent.
    r.open('b', 'lobby')
    await r.settle()
    expect(r.launches).toHaveLength(2)
    stopWorkspace(r.ws)
  })

  it('a policy agent that ended is not started again until the room empties and fills anew', async () => {
    const r = start([policy('default', 'default', 0, () => 'greeter')])
    const a = r.open('a', 'lobby')
    await r.settle()
    await r.agents[0]!.stop('stopped by request')
    const b = r.open('b', 'lobby')
    await r.settle()
    expect(r.launches).toHaveLength(1)
    r.end(a)
    r.end(b)
    // Nobody left and no agent: the actor holds nothing and goes with its room.
    expect(r.roomAgents('lobby')).toBeUndefined()
    r.open('c', 'lobby')
    await r.settle()
    expect(r.launches).toHaveLength(2)
    stopWorkspace(r.ws)
  })

  it("a device's auto agent and the room's default agent in one room: each wanted once, each leaving after its own stop delay", async () => {
    let setting: string | null = null
    const auto = policy('auto', 'auto', 30_000, (v) =>
      v.agents.length === 0 && v.launching.length === 0 && [...v.roster.transports.values()].includes('xiaozhi') ? 'platform default' : null)
    const byDefault = policy('default', 'default', 10_000, () => setting)
    const r = start([byDefault, auto])
    const tablet = r.open('tablet', 'kitchen')
    await r.settle()
    expect(r.live('kitchen')).toEqual([])
    const speaker = r.open('speaker', 'kitchen', 'xiaozhi')
    await r.settle()
    expect(r.live('kitchen')).toEqual(['auto agent@platform default'])

    // The back end names a default agent for the room: it comes in beside the auto agent.
    setting = 'helper'
    r.ws.send({ type: 'ROOM_AGENTS', room: 'kitchen', event: { type: 'POLICY_CHANGED', policy: 'default' } })
    await r.settle()
    expect(r.live('kitchen')).toEqual(['auto agent@platform default', 'default agent@helper'])
    // Asked again with the same answer: nothing changes.
    r.ws.send({ type: 'ROOM_AGENTS', room: 'kitchen', event: { type: 'POLICY_CHANGED', policy: 'default' } })
    await r.settle()
    expect(r.launches).toHaveLength(2)

    r.end(tablet)
    r.end(speaker)
    r.clock.advance(10_000)
    await r.settle()
    expect(r.live('kitchen')).toEqual(['auto agent@platform default'])
    r.clock.advance(20_000)
    await r.settle()
    expect(r.live('kitchen')).toEqual([])
    expect(r.agents.map((a) => a.stoppedFor)).toEqual(['room empty', 'room empty'])
    expect(r.roomAgents('kitchen')).toBeUndefined()
    stopWorkspace(r.ws)
  })

  it('a changed want replaces the policy agent, with the policy’s reason; none stops it', async () => {
    let setting: string | null = 'one'
    const r = start([policy('default', 'default', 0, () => setting)])
    r.open('a', 'lobby')
    await r.settle()
    setting = 'two'
    r.ws.send({ type: 'ROOM_AGENTS', room: 'lobby', event: { type: 'POLICY_CHANGED', policy: 'default' } })
    await r.settle()
    expect(r.agents[0]!.stoppedFor).toBe('default changed')
    expect(r.live('lobby')).toEqual(['default agent@two'])
    setting = null
    r.ws.send({ type: 'ROOM_AGENTS', room: 'lobby', event: { type: 'POLICY_CHANGED', policy: 'default' } })
    await r.settle()
    expect(r.live('lobby')).toEqual([])
    stopWorkspace(r.ws)
  })

  it('gives the agents one roster that follows joins, leaves and moves, terminals with their client id and transport', async () => {
    const r = start([])
    const bot = r.add('lobby', 'dispatched')
    const botMember: RoomMember = { id: bot.identity, kind: 'agent', name: null, deliver() {}, sendEvent() {}, joined() {} }
    r.ws.send({ type: 'JOIN_ROOM', room: 'lobby', member: botMember })
    const ids = (room: string) => r.roster(room)?.participants.map((p) => `${p.kind} ${p.id}`)
    expect(ids('lobby')).toEqual(['agent agent@api'])
    r.open('a', 'lobby')
    const b = r.open('b', 'lobby', 'mqtt')
    expect(ids('lobby')).toEqual(['agent agent@api', 'terminal a', 'terminal b'])
    expect([...r.roster('lobby')!.transports]).toEqual([['a', 'websocket'], ['b', 'mqtt']])
    const sourceOfB = r.roster('lobby')!.participants[2]!.sourceId
    expect(r.roster('lobby')!.bySource.get(sourceOfB)?.id).toBe('b')

    const before = r.roster('lobby')
    r.ws.send({ type: 'CLIENT_ROOM_CHANGED', clientId: 'a', room: 'hall' })
    expect(ids('lobby')).toEqual(['agent agent@api', 'terminal b'])
    // No agent and no policy there: no room-agents actor, no roster built.
    expect(r.roomAgents('hall')).toBeUndefined()
    r.add('hall', 'dispatched')
    expect(ids('hall')).toEqual(['terminal a'])
    // Replaced, never edited: a reader holding the old value keeps what it read.
    expect(before!.participants).toHaveLength(3)
    r.end(b)
    expect(ids('lobby')).toEqual(['agent agent@api'])
    expect(r.roomAgents('lobby')!.getSnapshot().context.terminals).toBe(0)
    stopWorkspace(r.ws)
  })

  it('gives a room a room-agents actor only when a policy may want an agent there or an agent comes: joins into other rooms cost none', async () => {
    const asked: string[] = []
    const devices: RoomAgentPolicy = {
      ...policy('auto', 'auto', 0, (v) => ([...v.roster.transports.values()].includes('xiaozhi') ? 'platform default' : null)),
      mayWant: (j) => (asked.push(`${j.room} ${j.kind} ${j.transport}`), j.kind === 'terminal' && j.transport === 'xiaozhi'),
    }
    const r = start([devices])
    r.open('a', 'lobby')
    r.open('b', 'lobby', 'mqtt')
    await r.settle()
    expect(r.roomAgents('lobby')).toBeUndefined()
    const lobby = r.ws.getSnapshot().context.rooms
    expect([...lobby].map(([name, ref]) => [name, ref.getSnapshot().context.roster.participants.length])).toEqual([['lobby', 0]])
    expect(asked).toEqual(['lobby terminal websocket', 'lobby terminal mqtt'])
    // A device joins the open room: the policy may want an agent, the actor comes with the whole roster.
    r.open('d', 'lobby', 'xiaozhi')
    await r.settle()
    expect(r.roster('lobby')?.participants.map((p) => p.id)).toEqual(['a', 'b', 'd'])
    expect(r.live('lobby')).toEqual(['auto agent@platform default'])
    // Once it has one, a join asks no policy whether it may want one.
    r.open('e', 'lobby')
    expect(asked).toHaveLength(3)
    expect(r.roster('lobby')?.participants.map((p) => p.id)).toEqual(['a', 'b', 'd', 'e'])
    stopWorkspace(r.ws)
  })

  it('a policy whose input changed reaches an open room that had no room-agents actor (POLICY_CHANGED, whenRoomOpen); a closed room gets none', async () => {
    let wants: string | null = null
    const r = start([{ ...policy('default', 'default', 0, () => wants), mayWant: () => wants !== null }])
    r.open('a', 'lobby')
    expect(r.roomAgents('lobby')).toBeUndefined()
    wants = 'greeter'
    r.ws.send({ type: 'ROOM_AGENTS', room: 'lobby', event: { type: 'POLICY_CHANGED', policy: 'default' }, open: 'whenRoomOpen' })
    r.ws.send({ type: 'ROOM_AGENTS', room: 'hall', event: { type: 'POLICY_CHANGED', policy: 'default' }, open: 'whenRoomOpen' })
    await r.settle()
    expect(r.live('lobby')).toEqual(['default agent@greeter'])
    expect(r.launches).toHaveLength(1)
    expect(r.roomAgents('hall')).toBeUndefined()
    stopWorkspace(r.ws)
  })

  it('when this node stops owning the room every agent of it goes; when it owns the room again the policies start over', async () => {
    const r = start([policy('default', 'default', 60_000, () => 'greeter')])
    r.setOwns(false)
    r.open('a', 'lobby')
    await r.settle()
    expect(r.launches).toEqual([])
    r.setOwns(true)
    r.ws.send({ type: 'ROOM_AGENTS', room: 'lobby', event: { type: 'OWNERSHIP_CHANGED', owned: true } })
    await r.settle()
    const dispatched = r.add('lobby', 'dispatched')
    expect(r.live('lobby')).toEqual(['default agent@greeter', 'dispatched agent@api'])
    r.setOwns(false)
    r.ws.send({ type: 'ROOM_AGENTS', room: 'lobby', event: { type: 'OWNERSHIP_CHANGED', owned: false } })
    await r.settle()
    expect([r.agents[0]!.stoppedFor, dispatched.stoppedFor]).toEqual(['room owner moved to another node', 'room owner moved to another node'])
    expect(r.live('lobby')).toEqual([])
    stopWorkspace(r.ws)
  })

  it('a policy agent that cannot be started is not asked for again in the same occupancy cycle', async () => {
    const wanted: string[] = []
    const r = start([policy('default', 'default', 0, (v) => (wanted.push(v.room), 'broken'))])
    r.refuse()
    r.open('a', 'lobby')
    await r.settle()
    r.open('b', 'lobby')
    await r.settle()
    expect(wanted).toEqual(['lobby'])
    expect(r.roomAgents('lobby')!.getSnapshot().context.cycles.get('default')).toEqual({ key: 'broken', agentId: null, launching: false })
    stopWorkspace(r.ws)
  })
})
