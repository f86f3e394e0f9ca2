/**
 * Storage on a real libSQL server (sqld on loopback, started by servers/sqld.ts): each storage
 * keeps a replica file of its own, reads it, and writes to the primary.
 */
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { startSqld, type Sqld } from '../../servers/sqld.js'
import { ConfigError } from '../configError.js'
import { StorageUnavailable } from '../errors.js'
import { runAll, tempDir } from '../test/helpers.js'
import { migrations } from './migrations.js'
import { checkPrimary } from './replica.js'
import { openStorage, type StorageShape } from './storage.js'

const cleanup: Array<() => unknown> = []
afterEach(async () => {
  await runAll(cleanup.splice(0).reverse())
})

const server = async (auth = false) => {
  const s = await startSqld({ auth })
  cleanup.push(() => s.stop())
  return s
}

/** A storage on `sqld` with its replica in a temp dir of its own (one node). */
const node = (sqld: Sqld, authToken: string | null = sqld.authToken): StorageShape => {
  const dir = tempDir()
  cleanup.push(dir.remove)
  const s = openStorage(join(dir.path, 'replica.db'), { url: sqld.url, authToken })
  cleanup.push(() => s.close())
  return s
}

const workspace = (s: StorageShape, workspaceId: string) =>
  s.transaction(() => {
    s.workspaces.insert({ workspaceId, name: workspaceId, createdAt: 1 })
    s.feed.record({ kind: 'workspace.created', workspaceId, subject: null, at: 1 })
  })

const unavailable = (f: () => unknown): string => {
  try {
    f()
  } catch (e) {
    return e instanceof StorageUnavailable ? 'storage_unavailable' : `other: ${String(e)}`
  }
  return 'no error'
}

describe('storage on a libSQL server', () => {
  it('applies the migrations once, on the primary: a second node finds them there', async () => {
    const sqld = await server()
    const a = node(sqld)
    const b = node(sqld)
    const versions = (s: StorageShape) => s.db.prepare('SELECT version FROM schema_migrations ORDER BY version').all()
    expect(versions(a)).toEqual(migrations.map((m) => ({ version: m.version })))
    expect(versions(b)).toEqual(versions(a))
    expect(a.file).not.toBe(b.file)
    expect(a.remote).toEqual({ url: sqld.url, authToken: null })
  })

  it("reads its own writes at once, and another node's after a refresh, through the change poll", async () => {
    const sqld = await server()
    const a = node(sqld)
    const b = node(sqld)
    const heard: string[] = []
    b.feed.onAny((c) => heard.push(`${c.kind}:${c.workspaceId}`))
    workspace(a, 'ws_a')
    // Read back on the writing node right away, twice (a statement is reused).
    expect(a.workspaces.get('ws_a')).toMatchObject({ workspaceId: 'ws_a' })
    expect(a.workspaces.get('ws_a')).toMatchObject({ workspaceId: 'ws_a' })
    // The other node's replica has not pulled it yet.
    expect(b.workspaces.get('ws_a')).toBeNull()
    expect(b.feed.poll()).toBe(0)
    await b.refresh()
    expect(b.workspaces.get('ws_a')).toMatchObject({ workspaceId: 'ws_a' })
    expect(b.feed.poll()).toBe(1)
    expect(heard).toEqual(['workspace.created:ws_a'])
    // Its own changes reach its listeners on commit, never again through the poll.
    expect(a.feed.poll()).toBe(0)
  })

  it('runs a transaction on the primary: its reads see its writes, a throw rolls it back', async () => {
    const sqld = await server()
    const a = node(sqld)
    const seen = a.transaction(() => {
      a.workspaces.insert({ workspaceId: 'ws_t', name: 't', createdAt: 1 })
      return [a.workspaces.get('ws_t')?.name, a.workspaces.get('ws_t')?.name]
    })
    expect(seen).toEqual(['t', 't'])
    expect(() =>
      a.transaction(() => {
        a.workspaces.insert({ workspaceId: 'ws_r', name: 'r', createdAt: 1 })
        throw new Error('rollback')
      }),
    ).toThrow('rollback')
    expect(a.workspaces.get('ws_r')).toBeNull()
    expect(a.db.inTransaction).toBe(false)
    // A constraint the primary enforces fails as before (not as an unreachable primary).
    expect(() => a.workspaces.insert({ workspaceId: 'ws_t', name: 'again', createdAt: 2 })).toThrow(/insert workspace failed/)
  })

  it('with the primary down: reads go on from the replica, writes are refused; after a restart, writes work again', async () => {
    const sqld = await server()
    const a = node(sqld)
    const b = node(sqld)
    workspace(a, 'ws_1')
    await b.refresh()
    const heard: boolean[] = []
    a.onPrimary((p) => heard.push(p.available))
    await sqld.kill()
    expect(unavailable(() => workspace(a, 'ws_2'))).toBe('storage_unavailable')
    expect(a.primary).toMatchObject({ available: false, reason: expect.stringMatching(/connect|refused|Unavailable/i) })
    expect(a.workspaces.get('ws_1')).toMatchObject({ workspaceId: 'ws_1' })
    expect(b.workspaces.get('ws_1')).toMatchObject({ workspaceId: 'ws_1' })
    await b.refresh()
    expect(b.primary).toMatchObject({ available: false })
    expect(b.workspaces.get('ws_1')).toMatchObject({ workspaceId: 'ws_1' })

    await sqld.restart()
    // Until a sync finds the primary again, writes are refused without being sent: even now.
    expect(unavailable(() => a.workspaces.insert({ workspaceId: 'ws_3', name: 'x', createdAt: 1 }))).toBe('storage_unavailable')
    await a.refresh()
    await b.refresh()
    expect(a.primary).toEqual({ available: true, reason: null })
    expect(heard).toEqual([false, true])
    workspace(a, 'ws_4')
    workspace(b, 'ws_5')
    await a.refresh()
    expect(a.workspaces.list().map((w) => w.workspaceId).sort()).toEqual(['ws_1', 'ws_4', 'ws_5'])
  })

  it('a transaction cut off by the primary failing leaves reads working, and the node writes again once it is back', async () => {
    const sqld = await server()
    const a = node(sqld)
    workspace(a, 'ws_1')
    const outcome = unavailable(() =>
      a.transaction(() => {
        a.workspaces.insert({ workspaceId: 'ws_cut', name: 'cut', createdAt: 1 })
        process.kill(sqld.pid, 'SIGKILL')
        a.workspaces.insert({ workspaceId: 'ws_cut2', name: 'cut', createdAt: 1 })
      }),
    )
    expect(outcome).toBe('storage_unavailable')
    await sqld.kill() // wait for its exit
    expect(a.db.inTransaction).toBe(false)
    expect(a.workspaces.get('ws_1')).toMatchObject({ workspaceId: 'ws_1' })
    expect(a.workspaces.list().map((w) => w.workspaceId)).toEqual(['ws_1'])
    await sqld.restart()
    await a.refresh()
    expect(a.primary.available).toBe(true)
    workspace(a, 'ws_after')
    // Nothing of the cut transaction reached the primary.
    const b = node(sqld)
    expect(b.workspaces.list().map((w) => w.workspaceId).sort()).toEqual(['ws_1', 'ws_after'])
  })

  it('refuses a second storage on the same replica file while the first has it open', async () => {
    const sqld = await server()
    const dir = tempDir()
    cleanup.push(dir.remove)
    const file = join(dir.path, 'replica.db')
    const first = openStorage(file, { url: sqld.url, authToken: null })
    expect(() => openStorage(file, { url: sqld.url, authToken: null })).toThrow(/in use by process \d+: every node needs its own data dir/)
    first.close()
    const again = openStorage(file, { url: sqld.url, authToken: null })
    again.close()
  })

  it('with auth: names a missing or refused token, an unreachable server and a server that is not sqld; a good token works', async () => {
    const sqld = await server(true)
    const remote = (authToken: string | null, url = sqld.url) => ({ url, authToken })
    await expect(checkPrimary(remote(null))).rejects.toThrow(ConfigError)
    await expect(checkPrimary(remote(null))).rejects.toThrow(/storage\.authToken.*refused it \(HTTP 401\): the server wants a token/)
    await expect(checkPrimary(remote('nope'))).rejects.toThrow(/storage\.authToken.*refused it \(HTTP 401\)/)
    await checkPrimary(remote(sqld.authToken))
    const down = await server()
    await down.kill()
    await expect(checkPrimary(remote(null, down.url))).rejects.toThrow(/cannot reach the database at http:\/\/127\.0\.0\.1:\d+ \(storage\.url\): ECONNREFUSED/)
    await expect(checkPrimary(remote(null, `${sqld.url}/nothing-here`))).rejects.toThrow(/storage\.url.*answered HTTP 404/)
    const a = node(sqld)
    workspace(a, 'ws_auth')
    expect(a.workspaces.get('ws_auth')).toMatchObject({ name: 'ws_auth' })
  })
})
