import { describe, expect, it } from 'vitest'
import { roomMembers, roomsFor, splitByRoom } from './rooms.js'

describe('room load layout', () => {
  it('shapes rooms from a talker count', () => {
    expect(roomsFor(40)).toEqual({ rooms: 20, roomSize: 10, talkersPerRoom: 2 })
    expect(roomsFor(5, 4, 2)).toEqual({ rooms: 3, roomSize: 4, talkersPerRoom: 2 })
  })

  it('numbers terminals across the run and makes the first ones of each room talk', () => {
    const m = roomMembers({ rooms: 2, roomSize: 3, talkersPerRoom: 1 })
    expect(m.map((x) => `${x.index}:${x.room}:${x.talker ? 'T' : '-'}`)).toEqual([
      '0:room-1:T', '1:room-1:-', '2:room-1:-', '3:room-2:T', '4:room-2:-', '5:room-2:-',
    ])
  })

  it('uses seeded clients when given', () => {
    const m = roomMembers({ rooms: 1, roomSize: 2, talkersPerRoom: 1, clientOf: (i) => ({ clientId: `c${i}`, room: 'r', credential: `tok${i}` }) })
    expect(m[1]).toMatchObject({ clientId: 'c1', room: 'r', credential: 'tok1', talker: false })
  })

  it('keeps every room whole in one generator process', () => {
    const m = roomMembers({ rooms: 5, roomSize: 4, talkersPerRoom: 2 })
    const parts = splitByRoom(m, 2)
    expect(parts).toHaveLength(2)
    expect(parts.flat()).toHaveLength(20)
    const owner = new Map<string, number>()
    parts.forEach((p, i) => p.forEach((x) => expect(owner.get(x.room) ?? (owner.set(x.room, i), i)).toBe(i)))
    // never more processes than rooms
    expect(splitByRoom(roomMembers({ rooms: 1, roomSize: 3, talkersPerRoom: 1 }), 4)).toHaveLength(1)
  })
})
