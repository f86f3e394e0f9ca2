import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ApiResponse } from './test/api.js'
import { startRestEngine, type RestEngine } from './test/restEngine.js'

let t: RestEngine
beforeAll(async () => {
  t = await startRestEngine()
})
afterAll(() => t.stop())

describe('clients', () => {
  it('creates, reads, updates and deletes a client', async () => {
    const { api } = t.workspace()
    const created = await api.post('/clients', { clientId: 'dev-1', name: 'Kitchen speaker', kind: 'device', room: 'lobby' })
    expect(created.status).toBe(201)
    expect(created.body).toMatchObject({
      clientId: 'dev-1', name: 'Kitchen speaker', kind: 'device', room: 'lobby', ephemeral: false, expiresAt: null,
      status: 'offline', online: false, connection: null,
    })
    expect(Date.parse(created.body.createdAt)).toBeGreaterThan(0)

    const detail = await api.get('/clients/dev-1')
    expect(detail.status).toBe(200)
    expect(detail.body).toEqual(created.body)

    const patched = await api.patch('/clients/dev-1', { room: 'hall', name: null })
    expect(patched.status).toBe(200)
    expect(patched.body).toMatchObject({ clientId: 'dev-1', room: 'hall', name: null, kind: 'device' })
    expect((await api.get('/clients/dev-1')).body.room).toBe('hall')

    const deleted = await api.delete('/clients/dev-1')
    expect(deleted).toMatchObject({ status: 200, body: { clientId: 'dev-1', deleted: true } })
    expect((await api.get('/clients/dev-1')).status).toBe(404)
    expect((await api.delete('/clients/dev-1')).body.error.code).toBe('client_not_found')
  })

  it('refuses a duplicate clientId with 409 and accepts it again after deletion', async () => {
    const { api } = t.workspace()
    expect((await api.post('/clients', { clientId: 'twice' })).status).toBe(201)
    const dup = await api.post('/clients', { clientId: 'twice', room: 'x' })
    expect(dup.status).toBe(409)
    expect(dup.body.error).toEqual({ code: 'client_exists', message: 'client twice already exists in this workspace' })
    await api.delete('/clients/twice')
    expect((await api.post('/clients', { clientId: 'twice' })).status).toBe(201)
  })

  it('keeps equal clientIds of two workspaces apart; the other workspace’s client is a plain 404', async () => {
    const a = t.workspace('alpha')
    const b = t.workspace('beta')
    expect((await a.api.post('/clients', { clientId: 'same', room: 'ra', kind: 'device' })).status).toBe(201)
    expect((await b.api.post('/clients', { clientId: 'same', room: 'rb' })).status).toBe(201)
    expect((await a.api.post('/clients', { clientId: 'only-a' })).status).toBe(201)

    expect((await a.api.get('/clients/same')).body.room).toBe('ra')
    expect((await b.api.get('/clients/same')).body.room).toBe('rb')
    expect((await b.api.get('/clients')).body.clients.map((c: { clientId: string }) => c.clientId)).toEqual(['same'])

    const missing = await b.api.get('/clients/never-existed')
    for (const probe of [
      b.api.get('/clients/only-a'),
      b.api.patch('/clients/only-a', { room: 'stolen' }),
      b.api.delete('/clients/only-a'),
      b.api.post('/clients/only-a/token', {}),
      b.api.post('/clients/only-a/token/revoke-all'),
    ]) {
      const r = await probe
      expect(r.status).toBe(404)
      expect(r.body.error.code).toBe(missing.body.error.code)
      expect(r.body.error.message).toBe('no client only-a in this workspace')
    }
    // b's PATCH did not touch a's client, and b's delete of its own "same" leaves a's alone.
    expect((await a.api.get('/clients/only-a')).body.room).toBeNull()
    expect((await b.api.delete('/clients/same')).status).toBe(200)
    expect((await a.api.get('/clients/same')).status).toBe(200)
  })

  it('lists in clientId order with cursor pagination and room/kind filters', async () => {
    const { api } = t.workspace()
    const ids = ['c-05', 'a-01', 'b-03', 'a-02', 'c-04', 'd-06', 'e-07']
    for (const [i, clientId] of ids.entries()) {
      const r = await api.post('/clients', { clientId, room: i % 2 === 0 ? 'even' : 'odd', kind: i < 3 ? 'device' : 'app' })
      expect(r.status).toBe(201)
    }
    const seen: string[] = []
    let cursor: string | null = null
    let pages = 0
    do {
      const r: ApiResponse = await api.get(`/clients?limit=3${cursor ? `&cursor=${cursor}` : ''}`)
      expect(r.status).toBe(200)
      expect(r.body.clients.length).toBeLessThanOrEqual(3)
      seen.push(...r.body.clients.map((c: { clientId: string }) => c.clientId))
      cursor = r.body.nextCursor
      pages++
    } while (cursor)
    expect(seen).toEqual([...ids].sort())
    expect(pages).toBe(3)

    const even = await api.get('/clients?room=even')
    expect(even.body.clients.map((c: { clientId: string }) => c.clientId)).toEqual(['b-03', 'c-04', 'c-05', 'e-07'])
    const evenApps = await api.get('/clients?room=even&kind=app')
    expect(evenApps.body.clients.map((c: { clientId: string }) => c.clientId)).toEqual(['c-04', 'e-07'])
    expect((await api.get('/clients?room=nowhere')).body).toEqual({ clients: [], nextCursor: null })

    // A page that ends exactly at the last row still says there is no more.
    const exact = await api.get('/clients?limit=7')
    expect(exact.body.clients).toHaveLength(7)
    expect(exact.body.nextCursor).toBeNull()
    // Deleting the row a cursor points at does not break the walk.
    const first = await api.get('/clients?limit=2')
    await api.delete(`/clients/${first.body.clients[1].clientId}`)
    const next = await api.get(`/clients?limit=2&cursor=${first.body.nextCursor}`)
    expect(next.body.clients.map((c: { clientId: string }) => c.clientId)).toEqual(['b-03', 'c-04'])
  })

  it('reports online state in detail and filters the list by status', async () => {
    const ws = t.workspace()
    for (const clientId of ['on-1', 'off-1', 'on-2', 'off-2']) {
      await ws.api.post('/clients', { clientId, room: 'lobby', kind: clientId.startsWith('on-1') ? 'device' : 'app' })
    }
    const before = Date.now()
    const live1 = await t.connect(ws.workspaceId, 'on-1', 'websocket')
    await t.connect(ws.workspaceId, 'on-2', 'mqtt')

    const detail = await ws.api.get('/clients/on-1')
    expect(detail.body).toMatchObject({ status: 'online', online: true, connection: { transport: 'websocket', room: 'lobby' } })
    expect(Date.parse(detail.body.connection.connectedAt)).toBeGreaterThanOrEqual(before - 1000)
    expect((await ws.api.get('/clients/off-1')).body).toMatchObject({ status: 'offline', online: false, connection: null })

    const names = (r: { body: { clients: Array<{ clientId: string }> } }) => r.body.clients.map((c) => c.clientId)
    expect(names(await ws.api.get('/clients?status=online'))).toEqual(['on-1', 'on-2'])
    expect(names(await ws.api.get('/clients?status=offline'))).toEqual(['off-1', 'off-2'])
    expect(names(await ws.api.get('/clients?status=online&kind=app'))).toEqual(['on-2'])
    const page1 = await ws.api.get('/clients?status=online&limit=1')
    expect(names(page1)).toEqual(['on-1'])
    expect(names(await ws.api.get(`/clients?status=online&limit=1&cursor=${page1.body.nextCursor}`))).toEqual(['on-2'])
    const offPage = await ws.api.get('/clients?status=offline&limit=1')
    expect(names(offPage)).toEqual(['off-1'])
    expect(names(await ws.api.get(`/clients?status=offline&limit=1&cursor=${offPage.body.nextCursor}`))).toEqual(['off-2'])

    // Another workspace's same-named client is not online just because ours is.
    const other = t.workspace('other')
    await other.api.post('/clients', { clientId: 'on-1' })
    expect((await other.api.get('/clients/on-1')).body.online).toBe(false)

    live1.session.end()
    expect((await ws.api.get('/clients/on-1')).body.status).toBe('offline')
  })

  it('moves a connected client to the new room at once on PATCH room, and out of rooms on room: null', async () => {
    const ws = t.workspace()
    await ws.api.post('/clients', { clientId: 'mover', room: 'r1' })
    await ws.api.post('/clients', { clientId: 'peer', room: 'r2' })
    const mover = await t.connect(ws.workspaceId, 'mover')
    await t.connect(ws.workspaceId, 'peer')
    expect((await ws.api.patch('/clients/mover', { room: 'r2' })).status).toBe(200)
    expect(await mover.link.event('room.changed')).toMatchObject({ from: 'r1', to: 'r2', participants: [{ id: 'peer' }] })
    expect((await ws.api.get('/clients/mover')).body.connection.room).toBe('r2')
    await ws.api.patch('/clients/mover', { room: null })
    expect(await mover.link.event('room.changed', (e) => e.to === null)).toMatchObject({ from: 'r2', to: null })
  })

  it('ends the live session of a deleted client and its tokens stop working', async () => {
    const ws = t.workspace()
    await ws.api.post('/clients', { clientId: 'doomed', room: 'lobby' })
    const token = (await ws.api.post('/clients/doomed/token', {})).body.token as string
    const live = await t.connect(ws.workspaceId, 'doomed')
    expect((await ws.api.delete('/clients/doomed')).status).toBe(200)
    expect((await live.link.closed)._tag).toBe('ClientDeleted')
    await expect(t.engine.host.security.authenticateTerminal({ token })).rejects.toMatchObject({ _tag: 'ClientNotFound' })
    // Re-creating the id does not revive tokens minted for the old client.
    await ws.api.post('/clients', { clientId: 'doomed' })
    await expect(t.engine.host.security.authenticateTerminal({ token })).rejects.toMatchObject({ _tag: 'TokenRevoked' })
  })
})
