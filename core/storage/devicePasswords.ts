/** Device access passwords: encrypted (viewable again) plus a keyed hash to find one at MQTT CONNECT. */
import { guard, type Db } from './db.js'

export interface DevicePasswordRecord {
  readonly workspaceId: string
  readonly clientId: string
  readonly passwordEnc: string
  readonly lookupHash: string
  readonly createdAt: number
}

interface Row { workspace_id: string; client_id: string; password_enc: string; lookup_hash: string; created_at: number }
const toRecord = (r: Row): DevicePasswordRecord => ({
  workspaceId: r.workspace_id, clientId: r.client_id, passwordEnc: r.password_enc,
  lookupHash: r.lookup_hash, createdAt: r.created_at,
})

export const devicePasswordsRepo = (db: Db) => {
  const upsert = db.prepare(`INSERT INTO device_passwords (workspace_id, client_id, password_enc, lookup_hash, created_at)
    VALUES (?, ?, ?, ?, ?)
    ON CONFLICT (workspace_id, client_id) DO UPDATE SET
      password_enc = excluded.password_enc, lookup_hash = excluded.lookup_hash, created_at = excluded.created_at`)
  const byClient = db.prepare('SELECT * FROM device_passwords WHERE workspace_id = ? AND client_id = ?')
  const byHash = db.prepare('SELECT * FROM device_passwords WHERE lookup_hash = ?')
  return {
    /** Set (or replace) a device's password: the old value stops matching in the same commit. */
    put: (p: DevicePasswordRecord) =>
      guard('store device password', () =>
        void upsert.run(p.workspaceId, p.clientId, p.passwordEnc, p.lookupHash, p.createdAt)),
    get: (workspaceId: string, clientId: string) =>
      guard('get device password', () => {
        const r = byClient.get(workspaceId, clientId) as Row | undefined
        return r ? toRecord(r) : null
      }),
    findByLookupHash: (lookupHash: string) =>
      guard('find device password', () => {
        const r = byHash.get(lookupHash) as Row | undefined
        return r ? toRecord(r) : null
      }),
  }
}
