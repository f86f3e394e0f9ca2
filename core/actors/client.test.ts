import { describe, expect, it } from 'vitest'
import { createActor, fromCallback } from 'xstate'
import { clientMachine, type ClientParentEvent } from './client.js'
import type { RoomMember } from './room.js'

const m: RoomMember = { id: 'c1', kind: 'terminal', name: null, deliver() {}, sendEvent() {}, joined() {} }

const harness = (room: string | null) => {
  const requests: string[] = []
  const unassigned: Array<string | null> = []
  // The workspace stand-in: an actor that records the requests it receives.
  const workspace = createActor(
    fromCallback<ClientParentEvent>(({ receive }) =>
      receive((e) => requests.push(`${e.type === 'JOIN_ROOM' ? 'join' : 'leave'} ${e.room}`)),
    ),
  ).start()
  const actor = createActor(clientMachine, {
    input: {
      member: m,
      room,
      unassigned: (from: string | null) => unassigned.push(from),
      workspace,
    },
  }).start()
  const child = () => actor
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
    expect(h.actor.getSnapshot().status).toBe('done')
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
