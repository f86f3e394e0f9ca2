import { describe, expect, it } from 'vitest'
import { createActor, createMachine, sendTo } from 'xstate'
import { clientMachine } from './client.js'
import type { RoomMember } from './room.js'

const m: RoomMember = { id: 'c1', kind: 'terminal', name: null, deliver() {}, sendEvent() {}, joined() {} }

const harness = (room: string | null) => {
  const requests: string[] = []
  const unassigned: Array<string | null> = []
  const parent = createMachine({
    invoke: { id: 'client', src: clientMachine, input: { member: m, room, unassigned: (from: string | null) => unassigned.push(from) } },
    on: {
      JOIN_ROOM: { actions: ({ event }) => requests.push(`join ${event.room}`) },
      LEAVE_ROOM: { actions: ({ event }) => requests.push(`leave ${event.room}`) },
      ASSIGN: { actions: sendTo('client', ({ event }) => event) },
      END: { actions: sendTo('client', ({ event }) => event) },
    },
  })
  const actor = createActor(parent).start()
  const child = () => actor.getSnapshot().children.client!
  return { actor, requests, unassigned, child }
}

describe('client actor', () => {
  it('joins its mapped room at connect, follows reassignment, leaves at the end', () => {
    const h = harness('a')
    expect(h.requests).toEqual(['join a'])
    expect(h.child().getSnapshot().value).toBe('inRoom')
    h.actor.send({ type: 'ASSIGN', room: 'a' })
    expect(h.requests).toEqual(['join a'])
    h.actor.send({ type: 'ASSIGN', room: 'b' })
    expect(h.requests).toEqual(['join a', 'leave a', 'join b'])
    h.actor.send({ type: 'ASSIGN', room: null })
    expect(h.requests).toEqual(['join a', 'leave a', 'join b', 'leave b'])
    expect(h.unassigned).toEqual(['b'])
    expect(h.child().getSnapshot().value).toBe('unassigned')
    h.actor.send({ type: 'ASSIGN', room: 'c' })
    h.actor.send({ type: 'END' })
    expect(h.requests.at(-1)).toBe('leave c')
    expect(h.actor.getSnapshot().children.client?.getSnapshot().status ?? 'done').toBe('done')
  })

  it('waits silently without a room until it gets one', () => {
    const h = harness(null)
    expect(h.requests).toEqual([])
    expect(h.unassigned).toEqual([null])
    expect(h.child().getSnapshot().value).toBe('unassigned')
    h.actor.send({ type: 'ASSIGN', room: null })
    expect(h.requests).toEqual([])
    h.actor.send({ type: 'ASSIGN', room: 'x' })
    expect(h.requests).toEqual(['join x'])
    h.actor.send({ type: 'END' })
    expect(h.requests).toEqual(['join x', 'leave x'])
  })

  it('ends without leaving when it never had a room', () => {
    const h = harness(null)
    h.actor.send({ type: 'END' })
    expect(h.requests).toEqual([])
  })
})
