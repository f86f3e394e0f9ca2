import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { tempDir } from '../test/helpers.js'
import { newJti } from '../ids.js'
import { MINTED_SINCE_SQL } from './issuedTokens.js'
import { openStorage, type StorageShape } from './storage.js'

const opened: Array<() => void> = []
afterEach(() => opened.splice(0).forEach((close) => close()))

const open = (): StorageShape => {
  const dir = tempDir()
  const storage = openStorage(join(dir.path, 'hark.db'))
  opened.push(() => {
    storage.close()
    dir.remove()
  })
  for (const workspaceId of ['ws_1', 'ws_2']) storage.workspaces.insert({ workspaceId, name: workspaceId, createdAt: 1 })
  return storage
}

const T = Date.UTC(2026, 11, 3, 10, 0, 0)

describe('issued tokens', () => {
  it('mintedSince: the client’s unrevoked tokens minted at or after the instant, the same millisecond included', () => {
    const storage = open()
    const mint = (workspaceId: string, clientId: string, at: number) => {
      const jti = newJti(at)
      storage.issuedTokens.insertMany([{ jti, workspaceId, clientId, issuedAt: at, expiresAt: null }])
      return jti
    }
    mint('ws_1', 'dev-1', T - 1)
    const sameMs = mint('ws_1', 'dev-1', T)
    const later = mint('ws_1', 'dev-1', T + 60_000)
    const revoked = mint('ws_1', 'dev-1', T + 1)
    storage.issuedTokens.revoke('ws_1', revoked, T + 2)
    mint('ws_1', 'dev-2', T)
    mint('ws_2', 'dev-1', T)
    expect(storage.issuedTokens.mintedSince('ws_1', 'dev-1', T).sort()).toEqual([sameMs, later].sort())
    expect(storage.issuedTokens.mintedSince('ws_1', 'dev-1', T + 60_001)).toEqual([])
  })

  it('keeps no per-client index: mintedSince reads the range of the jti key from the instant on', () => {
    const storage = open()
    const indexes = (storage.db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'issued_tokens'").all() as Array<{ name: string }>).map((r) => r.name)
    expect(indexes).not.toContain('issued_tokens_by_client')
    // Recording a batch of tokens then writes the rows and the jti key, each appended at its end.
    const plan = storage.db
      .prepare(`EXPLAIN QUERY PLAN ${MINTED_SINCE_SQL}`)
      .all('0', 0, 'ws_1', 'dev-1') as Array<{ detail: string }>
    expect(plan.map((p) => p.detail).join('; ')).toMatch(/SEARCH issued_tokens USING INDEX sqlite_autoindex_issued_tokens_1 \(jti>\?\)/)
  })
})
