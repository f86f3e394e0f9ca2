/**
 * What a connect or disconnect storm costs the control plane: drives one workspace actor
 * (core/actors/workspace.ts) with R rooms of 4 members joining, then all of them leaving, and
 * prints the event-loop time each phase blocked for. No sockets, no storage: only the actors and
 * the routers' copy-on-write sink arrays, which is where a storm used to grow quadratically (rooms
 * spawned as xstate children). A standalone figure: there is no peer with rooms to compare with.
 * Usage: node dist/bench/roomChurn.js [rooms ...] (default 750 3000)
 */
import * as HashMap from 'effect/HashMap'
import { createActor } from 'xstate'
import { stopWorkspace, workspaceMachine } from '../core/actors/workspace.js'
import { systemClock } from '../core/clock.js'
import type { RoomMember } from '../core/actors/room.js'

const ROOM_SIZE = 4
const levels = process.argv.slice(2).map(Number)

const member = (id: string): RoomMember => ({
  id, kind: 'terminal', name: null, deliver() {}, sendEvent() {}, joined() {},
})

const churn = (rooms: number) => {
  const ws = createActor(workspaceMachine, { clock: systemClock, input: { workspaceId: 'ws_bench', clock: systemClock } }).start()
  const members = Array.from({ length: rooms * ROOM_SIZE }, (_, i) => ({
    room: `room-${Math.floor(i / ROOM_SIZE)}`,
    member: member(`c${i}`),
  }))
  let t = performance.now()
  for (const { room, member } of members) ws.send({ type: 'JOIN_ROOM', room, member })
  const joinMs = performance.now() - t
  const open = HashMap.size(ws.getSnapshot().context.rooms)
  t = performance.now()
  for (const { room, member } of members) ws.send({ type: 'LEAVE_ROOM', room, member })
  const leaveMs = performance.now() - t
  const left = HashMap.size(ws.getSnapshot().context.rooms)
  stopWorkspace(ws)
  if (open !== rooms || left !== 0) throw new Error(`expected ${rooms} rooms then 0, saw ${open} then ${left}`)
  return { joinMs, leaveMs, terminals: members.length }
}

churn(100) // warm-up: JIT and module loading are not what is measured
console.log('rooms  terminals  join all (ms)  per join (µs)  leave all (ms)  per leave (µs)')
for (const rooms of levels.length > 0 ? levels : [750, 3000]) {
  const r = churn(rooms)
  console.log(
    [
      String(rooms).padStart(5),
      String(r.terminals).padStart(9),
      r.joinMs.toFixed(0).padStart(13),
      ((r.joinMs * 1000) / r.terminals).toFixed(1).padStart(13),
      r.leaveMs.toFixed(0).padStart(14),
      ((r.leaveMs * 1000) / r.terminals).toFixed(1).padStart(14),
    ].join('  '),
  )
}
