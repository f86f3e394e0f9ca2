import { describe, expect, it } from 'vitest'
import { createActor } from 'xstate'
import type { SourcePort } from '../dataplane/roomRouter.js'
import type { ServerEvent } from '../events.js'
import type { RoomMember } from './room.js'
import { stopWorkspace, workspaceMachine } from './workspace.js'

const member = (id: string) => {
  const m = {
    id, kind: 'terminal' as const, name: null,
    rooms: [] as string[], events: [] as ServerEvent[], port: null as SourcePort | null,
    deliver() {}, sendEvent(e: ServerEvent) { m.events.push(e) },
    joined(room: string, port: SourcePort) { m.rooms.push(room); m.port = port },
  }
  return m satisfies RoomMember
}

describe('workspace actor', () => {
  it('spawns rooms on first join, closes them when empty, and moves members between rooms', () => {
    const lifecycle: string[] = []
    const ws = createActor(workspaceMachine, {
      input: { workspaceId: 'ws_1', now: () => 0, roomLifecycle: (room, state) => lifecycle.push(`${state} ${room}`) },
    }).start()
    const a = member('a')
    ws.send({ type: 'JOIN_ROOM', room: 'r1', member: a })
    expect(a.rooms).toEqual(['r1'])
    expect([...ws.getSnapshot().context.rooms.keys()]).toEqual(['r1'])
    ws.send({ type: 'LEAVE_ROOM', room: 'r1', member: a })
    ws.send({ type: 'JOIN_ROOM', room: 'r2', member: a })
    expect(a.rooms).toEqual(['r1', 'r2'])
    expect([...ws.getSnapshot().context.rooms.keys()]).toEqual(['r2'])
    ws.send({ type: 'LEAVE_ROOM', room: 'r2', member: a })
    expect(ws.getSnapshot().context.rooms.size).toBe(0)
    ws.send({ type: 'JOIN_ROOM', room: 'r3', member: a })
    ws.send({ type: 'LEAVE_ROOM', room: 'r3', member: a })
    expect(ws.getSnapshot().context.rooms.size).toBe(0)
    expect(lifecycle).toEqual(['opened r1', 'closed r1', 'opened r2', 'closed r2', 'opened r3', 'closed r3'])
  })

  it('keeps two workspaces apart even with equal room names', () => {
    const ws1 = createActor(workspaceMachine, { input: { workspaceId: 'ws_1', now: () => 0 } }).start()
    const ws2 = createActor(workspaceMachine, { input: { workspaceId: 'ws_2', now: () => 0 } }).start()
    const a = member('same')
    const b = member('same')
    ws1.send({ type: 'JOIN_ROOM', room: 'lobby', member: a })
    ws2.send({ type: 'JOIN_ROOM', room: 'lobby', member: b })
    expect(a.events.filter((e) => e.type === 'participant.joined')).toEqual([])
    expect(b.events.filter((e) => e.type === 'participant.joined')).toEqual([])
    expect(a.port!.router).not.toBe(b.port!.router)
  })

  it('holds rooms in its own map, not as xstate children, and stops them with the workspace', () => {
    // xstate copies a parent's children object on every spawn and stop: rooms as children made a
    // disconnect storm quadratic in the number of rooms.
    const ws = createActor(workspaceMachine, { input: { workspaceId: 'ws_1', now: () => 0 } }).start()
    const members = Array.from({ length: 6 }, (_, i) => member(`m${i}`))
    members.forEach((m, i) => ws.send({ type: 'JOIN_ROOM', room: `r${i % 3}`, member: m }))
    const rooms = [...ws.getSnapshot().context.rooms.values()]
    expect(rooms).toHaveLength(3)
    expect(Object.keys(ws.getSnapshot().children)).toEqual([])
    expect(rooms.map((r) => r.getSnapshot().status)).toEqual(['active', 'active', 'active'])
    stopWorkspace(ws)
    expect(rooms.map((r) => r.getSnapshot().status)).toEqual(['stopped', 'stopped', 'stopped'])
    expect(ws.getSnapshot().status).toBe('stopped')
  })
})
