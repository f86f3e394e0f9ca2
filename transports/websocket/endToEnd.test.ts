/**
 * The back end's view and the terminal's view together: the REST API (real HTTP, API key) acts on
 * terminals connected over real WSS sockets — tokens from the token endpoint, a PATCH moving a live
 * terminal and its audio, DELETE and token revocation disconnecting, online state and rooms.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parseDownlink } from '../../core/dataplane/frame.js'
import { uplink } from '../../core/test/helpers.js'
import { startRestEngine, type RestEngine } from '../../plugins/rest/test/restEngine.js'
import { websocketTransport } from './index.js'
import { TestTerminal } from './test/terminalClient.js'

let t: RestEngine
beforeAll(async () => {
  t = await startRestEngine({ extensions: [websocketTransport] })
})
afterAll(() => t.stop())

type Issued = { token: string; jti: string }

describe('REST and WebSocket together', () => {
  it('issues tokens, shows online terminals and rooms, moves a live terminal with PATCH, disconnects on revoke and DELETE', async () => {
    const { api } = t.workspace()
    for (const [clientId, room] of [['a', 'r1'], ['b', 'r1'], ['c', 'r2']]) {
      expect((await api.post('/clients', { clientId, room })).status).toBe(201)
    }
    const tokenOf = async (id: string) => {
      const issued = await api.post<{ token: string }>(`/clients/${id}/token`, {})
      expect(issued.status).toBe(201)
      return issued.body.token
    }
    const connect = async (id: string) =>
      TestTerminal.connect(t.engine.ports.gateway!, { token: await tokenOf(id) }, t.engine.host.tls.cert)
    const a = await connect('a')
    const b = await connect('b')
    const c = await connect('c')
    await a.event('participant.joined', (e) => e.participant.id === 'b')
    await c.event('session')

    const detail = await api.get('/clients/a')
    expect(detail.body).toMatchObject({ status: 'online', connection: { transport: 'websocket', room: 'r1' } })
    expect((await api.get<{ clients: Array<{ clientId: string }> }>('/clients?status=online')).body.clients.map((x) => x.clientId)).toEqual(['a', 'b', 'c'])
    const rooms = await api.get<{ rooms: Array<{ room: string; participants: Array<{ id: string; transport: string }> }> }>('/rooms')
    expect(rooms.body.rooms.map((r) => [r.room, r.participants.map((p) => `${p.id}/${p.transport}`)])).toEqual([
      ['r1', ['a/websocket', 'b/websocket']],
      ['r2', ['c/websocket']],
    ])

    // PATCH moves a live terminal: it leaves r1 (b is told), joins r2 (c is told), its audio follows.
    expect((await api.patch('/clients/a', { room: 'r2' })).status).toBe(200)
    expect(await a.event('room.changed')).toMatchObject({ from: 'r1', to: 'r2', participants: [{ id: 'c' }] })
    await b.event('participant.left', (e) => e.participant.id === 'a')
    await c.event('participant.joined', (e) => e.participant.id === 'a')
    a.sendAudio(uplink([4, 2]))
    expect([...parseDownlink(await c.frames.next())!.opus]).toEqual([4, 2])
    b.send({ type: 'ping' })
    await b.event('pong')
    expect(b.frames.items).toHaveLength(0)

    // Revoking a's token by jti disconnects it; DELETE of c disconnects c.
    const issued = await api.post<Issued>('/clients/b/token', {})
    const b2 = await TestTerminal.connect(t.engine.ports.gateway!, { token: issued.body.token }, t.engine.host.tls.cert)
    expect(await b.closed).toEqual({ code: 4005, reason: 'session_replaced' })
    expect((await api.post('/tokens/revoke', { jti: issued.body.jti })).status).toBe(200)
    expect(await b2.closed).toEqual({ code: 4003, reason: 'token_revoked' })
    expect((await api.delete('/clients/c')).status).toBe(200)
    expect(await c.closed).toEqual({ code: 4004, reason: 'client_deleted' })
    expect(c.events.items.at(-1)).toMatchObject({ type: 'session.closing', code: 'client_deleted' })

    expect((await api.get('/clients/b')).body).toMatchObject({ status: 'offline', connection: null })
    expect((await api.get('/rooms')).body).toMatchObject({ rooms: [{ room: 'r2', participants: [{ id: 'a' }] }] })
    a.close()
  })
})
