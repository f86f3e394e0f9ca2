/**
 * A REST PATCH of a client's room carries the client in its change: on its way from the request to
 * the client's live WebSocket terminal the client is read from storage at most once (by the
 * operation that checks it exists), whoever listens to the change (the terminal hub, the webhook
 * outbox, the console's and the webhooks' listeners).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ChangeOf } from '../../core/storage/changes.js'
import type { StorageShape } from '../../core/storage/storage.js'
import { websocketTransport } from '../../transports/websocket/index.js'
import { TestTerminal } from '../../transports/websocket/test/terminalClient.js'
import { startRestEngine, type RestEngine } from './test/restEngine.js'

let t: RestEngine
beforeAll(async () => {
  t = await startRestEngine({ extensions: [websocketTransport] })
})
afterAll(() => t.stop())

/** Count the storage's reads of one client (every way the clients repository reads a row). */
const countReads = (storage: StorageShape, workspaceId: string, clientId: string) => {
  const repo = storage.clients as { -readonly [K in keyof StorageShape['clients']]: StorageShape['clients'][K] }
  const { get, list, expired } = repo
  const reads = { count: 0 }
  repo.get = (ws, id) => {
    if (ws === workspaceId && id === clientId) reads.count++
    return get(ws, id)
  }
  repo.list = (ws, q) => {
    const page = list(ws, q)
    if (ws === workspaceId && page.some((c) => c.clientId === clientId)) reads.count++
    return page
  }
  repo.expired = (now, limit) => {
    const page = expired(now, limit)
    if (page.some((c) => c.workspaceId === workspaceId && c.clientId === clientId)) reads.count++
    return page
  }
  return { reads, restore: () => Object.assign(repo, { get, list, expired }) }
}

describe('a room change through REST', () => {
  it("reads the client from storage at most once from the PATCH to the terminal's room.changed", async () => {
    const { api, workspaceId, keyId } = t.workspace()
    expect((await api.post('/clients', { clientId: 'mover', room: 'r1' })).status).toBe(201)
    const { token } = (await api.post<{ token: string }>('/clients/mover/token', {})).body
    const terminal = await TestTerminal.connect(t.engine.ports.gateway!, { token }, t.engine.host.tls.cert)
    expect(await terminal.event('session')).toMatchObject({ room: 'r1' })

    const changes: Array<ChangeOf<'client.updated'>> = []
    const off = t.engine.host.storage.feed.on('client.updated', (c) => changes.push(c))
    const { reads, restore } = countReads(t.engine.host.storage, workspaceId, 'mover')
    try {
      const patched = api.patch('/clients/mover', { room: 'r2' })
      expect(await terminal.event('room.changed')).toMatchObject({ from: 'r1', to: 'r2' })
      expect((await patched).status).toBe(200)
      expect(reads.count).toBeLessThanOrEqual(1)
      // What every listener got instead: the client before and after, and who changed it.
      expect(changes).toMatchObject([{ subject: 'mover', before: { room: 'r1' }, after: { room: 'r2' }, by: { type: 'apiKey', keyId } }])
      // The counter does see reads of this client: a GET is one.
      const before = reads.count
      expect((await api.get('/clients/mover')).body).toMatchObject({ room: 'r2', connection: { room: 'r2' } })
      expect(reads.count).toBe(before + 1)
    } finally {
      off()
      restore()
      terminal.ws.close()
    }
  })
})
