/**
 * Device enrollment by code: a device that announces itself before anyone registered it gets a
 * pending enrollment (a short code shown on the device); an administrator claims the code into a
 * workspace, which binds the device's hardware id to a client. Two tables: pending enrollments
 * (keyed by device id and the device's install instance) and bindings (one per device id, one per
 * client).
 */
import { guard, type Db } from './db.js'

export interface PendingEnrollmentRecord {
  /** Hardware identity the device reports (a MAC address, lower-case). */
  readonly deviceId: string
  /** A value only the device itself knows (its install UUID); bindings answer only to it. */
  readonly instanceId: string
  /** The code an administrator enters to claim the device. */
  readonly code: string
  /** Protocol family, chosen by the transport that enrolled it; the kind of a client the claim creates. */
  readonly kind: string
  /** What the device said about itself (board, firmware), for the console; small JSON. */
  readonly info: Readonly<Record<string, unknown>> | null
  readonly createdAt: number
  /** The code stops working after this instant unless the device asks again. */
  readonly expiresAt: number
}

export interface DeviceBindingRecord {
  readonly deviceId: string
  readonly instanceId: string
  readonly workspaceId: string
  readonly clientId: string
  readonly kind: string
  readonly info: Readonly<Record<string, unknown>> | null
  readonly boundAt: number
}

interface PendingRow {
  device_id: string; instance_id: string; code: string; kind: string; info: string | null; created_at: number; expires_at: number
}
interface BindingRow {
  device_id: string; instance_id: string; workspace_id: string; client_id: string; kind: string; info: string | null; bound_at: number
}

const parseInfo = (info: string | null) => (info === null ? null : (JSON.parse(info) as Record<string, unknown>))
const toPending = (r: PendingRow): PendingEnrollmentRecord => ({
  deviceId: r.device_id, instanceId: r.instance_id, code: r.code, kind: r.kind, info: parseInfo(r.info),
  createdAt: r.created_at, expiresAt: r.expires_at,
})
const toBinding = (r: BindingRow): DeviceBindingRecord => ({
  deviceId: r.device_id, instanceId: r.instance_id, workspaceId: r.workspace_id, clientId: r.client_id,
  kind: r.kind, info: parseInfo(r.info), boundAt: r.bound_at,
})

export const deviceEnrollmentsRepo = (db: Db) => {
  const pendingByDevice = db.prepare('SELECT * FROM device_enrollments WHERE device_id = ? AND instance_id = ?')
  const pendingByCode = db.prepare('SELECT * FROM device_enrollments WHERE code = ?')
  const insertPending = db.prepare(`INSERT INTO device_enrollments
    (device_id, instance_id, code, kind, info, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)`)
  const touchPending = db.prepare(
    'UPDATE device_enrollments SET expires_at = ?, info = ? WHERE device_id = ? AND instance_id = ?')
  const deletePending = db.prepare('DELETE FROM device_enrollments WHERE device_id = ?')
  const prunePending = db.prepare('DELETE FROM device_enrollments WHERE expires_at <= ?')
  const bindingByDevice = db.prepare('SELECT * FROM device_bindings WHERE device_id = ?')
  const bindingByClient = db.prepare('SELECT * FROM device_bindings WHERE workspace_id = ? AND client_id = ?')
  const upsertBinding = db.prepare(`INSERT INTO device_bindings
    (device_id, instance_id, workspace_id, client_id, kind, info, bound_at) VALUES (?, ?, ?, ?, ?, ?, ?)
    ON CONFLICT (device_id) DO UPDATE SET instance_id = excluded.instance_id, workspace_id = excluded.workspace_id,
      client_id = excluded.client_id, kind = excluded.kind, info = excluded.info, bound_at = excluded.bound_at`)
  const deleteBinding = db.prepare('DELETE FROM device_bindings WHERE workspace_id = ? AND device_id = ?')
  const listBindings = db.prepare(
    'SELECT * FROM device_bindings WHERE workspace_id = ? AND device_id > ? ORDER BY device_id LIMIT ?')
  const infoText = (info: Readonly<Record<string, unknown>> | null) => (info === null ? null : JSON.stringify(info))
  return {
    pending: (deviceId: string, instanceId: string) =>
      guard('get enrollment', () => {
        const r = pendingByDevice.get(deviceId, instanceId) as PendingRow | undefined
        return r ? toPending(r) : null
      }),
    pendingByCode: (code: string) =>
      guard('find enrollment', () => {
        const r = pendingByCode.get(code) as PendingRow | undefined
        return r ? toPending(r) : null
      }),
    insertPending: (p: PendingEnrollmentRecord) =>
      guard('insert enrollment', () =>
        void insertPending.run(p.deviceId, p.instanceId, p.code, p.kind, infoText(p.info), p.createdAt, p.expiresAt)),
    /** Keep a pending code alive (the device asked again) and refresh what it said about itself. */
    touchPending: (deviceId: string, instanceId: string, expiresAt: number, info: Readonly<Record<string, unknown>> | null) =>
      guard('refresh enrollment', () => void touchPending.run(expiresAt, infoText(info), deviceId, instanceId)),
    /** Forget every pending enrollment of a device (it was bound). */
    deletePending: (deviceId: string) => guard('delete enrollment', () => void deletePending.run(deviceId)),
    /** Forget pending enrollments whose code expired by `now`; returns how many. */
    prunePending: (now: number) => guard('prune enrollments', () => prunePending.run(now).changes),
    binding: (deviceId: string) =>
      guard('get device binding', () => {
        const r = bindingByDevice.get(deviceId) as BindingRow | undefined
        return r ? toBinding(r) : null
      }),
    bindingOfClient: (workspaceId: string, clientId: string) =>
      guard('get device binding', () => {
        const r = bindingByClient.get(workspaceId, clientId) as BindingRow | undefined
        return r ? toBinding(r) : null
      }),
    putBinding: (b: DeviceBindingRecord) =>
      guard('bind device', () =>
        void upsertBinding.run(b.deviceId, b.instanceId, b.workspaceId, b.clientId, b.kind, infoText(b.info), b.boundAt)),
    deleteBinding: (workspaceId: string, deviceId: string) =>
      guard('unbind device', () => deleteBinding.run(workspaceId, deviceId).changes > 0),
    listBindings: (workspaceId: string, q: { after?: string; limit: number }) =>
      guard('list device bindings', () =>
        (listBindings.all(workspaceId, q.after ?? '', q.limit) as BindingRow[]).map(toBinding)),
  }
}
