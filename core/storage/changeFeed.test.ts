import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { tempDir } from '../test/helpers.js'
import { asChangeRow, changeRow, type Change, type ChangeOf } from './changes.js'
import type { ClientRecord } from './clients.js'
import { openStorage, type StorageShape } from './storage.js'
import type { WebhookEndpointRecord } from './webhookEndpoints.js'

const cleanup: Array<() => void> = []
afterEach(() => cleanup.splice(0).reverse().forEach((f) => f()))

/** Two processes' storage handles on one file (the engine and the CLI), the workspace ws_1 in it. */
const pair = () => {
  const dir = tempDir()
  cleanup.push(dir.remove)
  const a = openStorage(join(dir.path, 'hark.db'))
  const b = openStorage(join(dir.path, 'hark.db'))
  cleanup.push(() => a.close(), () => b.close())
  a.workspaces.insert({ workspaceId: 'ws_1', name: 'acme', createdAt: 1 })
  return { a, b }
}

const client = (clientId: string, room: string | null, at = 1): ClientRecord => ({
  workspaceId: 'ws_1', clientId, name: null, kind: 'device', room, ephemeral: false, expiresAt: null,
  tokensNotBefore: 1, createdAt: 1, updatedAt: at,
})

const endpoint: WebhookEndpointRecord = {
  webhookId: 'wh_1', workspaceId: 'ws_1', url: 'https://example.com/h', events: ['client.updated'], description: 'ops',
  secretEnc: 'sealed', previousSecretEnc: null, previousSecretExpiresAt: null, enabled: true, disabledReason: null,
  failingSince: null, createdAt: 1, updatedAt: 1,
}

/** Every change a handle hears, in order. */
const heard = (s: StorageShape) => {
  const all: Change[] = []
  s.feed.onAny((c) => all.push(c))
  return all
}

describe('the change feed', () => {
  it('tells listeners about commits only, by the kinds they subscribe to, and other processes through polling', () => {
    const { a, b } = pair()
    const updates: Array<ChangeOf<'client.updated'>> = []
    const deletions: string[] = []
    a.feed.on('client.updated', (c) => updates.push(c))
    a.feed.on(['client.deleted', 'client.tokensRevoked'], (c) => deletions.push(`${c.kind}:${c.subject}`))
    const inB = heard(b)
    expect(() =>
      a.transaction(() => {
        a.feed.record({ kind: 'client.updated', workspaceId: 'ws_1', subject: 'c1', at: 1, before: client('c1', 'r1'), after: client('c1', 'r2') })
        throw new Error('rollback')
      }),
    ).toThrow('rollback')
    expect(updates).toEqual([])
    a.transaction(() => {
      a.feed.record({ kind: 'client.updated', workspaceId: 'ws_1', subject: 'c2', at: 2, before: client('c2', 'r1'), after: client('c2', 'r2', 2) })
      a.feed.record({ kind: 'client.deleted', workspaceId: 'ws_1', subject: 'c3', at: 2 })
      // Nothing until the commit.
      expect(updates).toEqual([])
    })
    expect(updates.map((c) => [c.subject, c.before?.room, c.after.room])).toEqual([['c2', 'r1', 'r2']])
    expect(deletions).toEqual(['client.deleted:c3'])
    expect(a.feed.poll()).toBe(0)
    expect(b.feed.poll()).toBe(2)
    expect(inB.map((c) => `${c.kind}:${c.subject}`)).toEqual(['client.updated:c2', 'client.deleted:c3'])
    expect(b.feed.poll()).toBe(0)
  })

  it('carries each kind’s payload through the change log to another process as it was recorded', () => {
    const { a, b } = pair()
    const inB = heard(b)
    const recorded = [
      a.feed.record({
        kind: 'client.updated', workspaceId: 'ws_1', subject: 'dev-1', at: 3, by: { type: 'apiKey', keyId: 'key_1' },
        before: client('dev-1', 'lobby'), after: client('dev-1', 'hall', 3),
      }),
      a.feed.record({ kind: 'client.created', workspaceId: 'ws_1', subject: 'dev-2', at: 4, by: { type: 'operator' }, client: client('dev-2', null) }),
      a.feed.record({ kind: 'token.revoked', workspaceId: 'ws_1', subject: '01JD3M5Q8T7V2XW4YZ6A9BCDEF', at: 5, clientId: 'dev-1' }),
      a.feed.record({
        kind: 'room.updated', workspaceId: 'ws_1', subject: 'lobby', at: 6, by: { type: 'user', userId: 'usr_1', email: 'a@example.com' },
        defaultAgent: { presetId: 'helper', overrides: { voice: 'alloy', nested: { n: 1 } }, stopDelaySeconds: 5 },
      }),
      a.feed.record({ kind: 'webhook.updated', workspaceId: 'ws_1', subject: 'wh_1', at: 7, endpoint }),
      a.feed.record({ kind: 'user.accessChanged', workspaceId: null, subject: 'usr_1', at: 8 }),
      a.feed.record({ kind: 'workspace.created', workspaceId: 'ws_2', subject: null, at: 9 }),
    ]
    expect(b.feed.poll()).toBe(recorded.length)
    expect(inB).toEqual(recorded)
    expect(recorded[2]).toMatchObject({ by: null, origin: a.origin })
  })

  it('runs writers inside the change’s transaction, for their kinds only: a throwing writer rolls the write back', () => {
    const { a } = pair()
    const written: string[] = []
    a.feed.onRecord('client.created', (c) => {
      written.push(c.client.clientId)
      a.clients.insert({ ...c.client, clientId: `${c.client.clientId}-shadow` })
      if (c.client.clientId === 'bad') throw new Error('writer failed')
    })
    const create = (id: string) =>
      a.transaction(() => {
        a.clients.insert(client(id, null))
        a.feed.record({ kind: 'client.created', workspaceId: 'ws_1', subject: id, at: 1, client: client(id, null) })
      })
    // Outside a transaction, the record opens one for its writers.
    a.feed.record({ kind: 'client.deleted', workspaceId: 'ws_1', subject: 'x', at: 1 })
    create('good')
    expect(() => create('bad')).toThrow('writer failed')
    expect(written).toEqual(['good', 'bad'])
    expect(a.clients.list('ws_1', { limit: 10 }).map((c) => c.clientId)).toEqual(['good', 'good-shadow'])
  })

  it('completes a row an older release wrote (no payload) from storage, and skips rows it cannot use', () => {
    const { a, b } = pair()
    a.clients.insert(client('dev-1', 'hall'))
    a.roomSettings.put({ workspaceId: 'ws_1', room: 'lobby', defaultAgent: { presetId: null, overrides: null, stopDelaySeconds: 3 } }, 1)
    a.issuedTokens.insert({ jti: '01JD3M5Q8T7V2XW4YZ6A9BCDEF', workspaceId: 'ws_1', clientId: 'dev-1', issuedAt: 1, expiresAt: null })
    const inB = heard(b)
    // What a release before the typed feed writes (schema 10's columns only), beside a newer kind and a broken row.
    const old = a.db.prepare('INSERT INTO changes (origin, workspace_id, kind, subject, at) VALUES (?, ?, ?, ?, ?)')
    old.run('old:1:x', 'ws_1', 'client.updated', 'dev-1', 10)
    old.run('old:1:x', 'ws_1', 'client.updated', 'gone', 11)
    old.run('old:1:x', 'ws_1', 'token.revoked', '01JD3M5Q8T7V2XW4YZ6A9BCDEF', 12)
    old.run('old:1:x', 'ws_1', 'room.updated', 'lobby', 13)
    old.run('old:1:x', 'ws_1', 'client.deleted', 'dev-9', 14)
    old.run('new:1:x', 'ws_1', 'client.renamedInTheFuture', 'dev-1', 15)
    old.run('old:1:x', 'ws_1', 'client.deleted', null, 16)
    a.db.prepare("INSERT INTO changes (origin, workspace_id, kind, subject, at, format, payload) VALUES ('new:1:x', 'ws_1', 'client.created', 'dev-1', 17, 1, '{\"by\":null,\"client\":7}')").run()
    expect(b.feed.poll()).toBe(8)
    expect(inB.map((c) => [c.kind, c.subject])).toEqual([
      ['client.updated', 'dev-1'], ['token.revoked', '01JD3M5Q8T7V2XW4YZ6A9BCDEF'], ['room.updated', 'lobby'], ['client.deleted', 'dev-9'],
      ['client.created', 'dev-1'],
    ])
    expect(inB[0]).toMatchObject({ before: null, after: { clientId: 'dev-1', room: 'hall' }, by: null, origin: 'old:1:x', at: 10 })
    expect(inB[1]).toMatchObject({ clientId: 'dev-1' })
    expect(inB[2]).toMatchObject({ defaultAgent: { stopDelaySeconds: 3 } })
    // A payload this release cannot read is completed like an older release's row.
    expect(inB[4]).toMatchObject({ client: { clientId: 'dev-1', room: 'hall' } })
  })

  it('reads a change another node sent as its row, and the bare change a node of an older release sends', () => {
    const { a, b } = pair()
    a.clients.insert(client('dev-1', 'hall'))
    const change = a.feed.record({
      kind: 'client.updated', workspaceId: 'ws_1', subject: 'dev-1', at: 3, before: client('dev-1', 'lobby'), after: client('dev-1', 'attic', 3),
    })
    const sent = JSON.parse(JSON.stringify({ change: changeRow(change) })) as { change: unknown }
    expect(b.feed.read(asChangeRow(sent.change)!)).toEqual(change)
    // The older node's message: the change without format or payload (and its room beside it, no longer read).
    const bare = { id: 9, origin: 'old:1:x', workspaceId: 'ws_1', kind: 'client.updated', subject: 'dev-1', at: 4 }
    expect(b.feed.read(asChangeRow(bare)!)).toMatchObject({ before: null, after: { room: 'hall' } })
    expect(asChangeRow({ ...bare, subject: 5 })).toBeNull()
    expect(asChangeRow('hark')).toBeNull()
  })
})
