/**
 * Where the live feed's events come from: the terminal hub's session lifecycle (presence) and
 * room occupancy, and the storage change log (clients created, changed or deleted, room settings).
 * Returns the function that stops listening.
 */
import type { StorageShape } from '../../core/storage/storage.js'
import type { TerminalHub } from '../../core/terminals.js'
import type { LiveFeed } from './live.js'

const CLIENT_CHANGES = { 'client.created': 'created', 'client.updated': 'updated', 'client.deleted': 'deleted' } as const

export const connectLiveSources = (feed: LiveFeed, terminals: TerminalHub, storage: StorageShape): (() => void) => {
  const stops = [
    terminals.onSession((e) =>
      feed.publish(e.workspaceId, { type: 'presence', clientId: e.clientId, online: e.type === 'opened', transport: e.transport })),
    terminals.onRoomOccupancy((e) => feed.publish(e.workspaceId, { type: 'room', room: e.room })),
    storage.onChange((change) => {
      if (change.workspaceId === null || change.subject === null) return
      if (change.kind in CLIENT_CHANGES) {
        const kind = change.kind as keyof typeof CLIENT_CHANGES
        feed.publish(change.workspaceId, { type: 'client', clientId: change.subject, change: CLIENT_CHANGES[kind] })
      } else if (change.kind === 'room.updated') {
        feed.publish(change.workspaceId, { type: 'room', room: change.subject })
      }
    }),
  ]
  return () => stops.forEach((stop) => stop())
}
