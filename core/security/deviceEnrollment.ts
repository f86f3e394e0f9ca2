/**
 * Device enrollment by code, the flow of devices that ship without credentials and ask a server to
 * be let in (e.g. xiaozhi-esp32 firmware's activation): the device announces its hardware id and
 * install instance; a device nobody bound yet gets a 6-digit code to show its owner; an
 * administrator claims the code into a workspace and a client (the console's "Add device by code",
 * the CLI, or any caller of `claim`); from then on the device's announcement is answered with the
 * client's device password, which it presents on its transport.
 *
 * A binding answers only to the instance that was claimed (the install UUID the device sent with
 * its code), not to the hardware id alone, which is broadcast on the air. One device per client;
 * deleting the client deletes the binding (the device then asks for a new code).
 */
import { randomInt } from 'node:crypto'
import type { ClockShape } from '../clock.js'
import { Conflict, NotFound, ValidationFailed, WorkspaceNotFound } from '../errors.js'
import { isClientId, isDisplayName, isKind, isRoomName } from '../naming.js'
import type { ChangeAuthor } from '../storage/changes.js'
import type { DeviceBindingRecord } from '../storage/deviceEnrollments.js'
import type { StorageShape } from '../storage/storage.js'
import type { DevicePasswords } from './devicePasswords.js'

/** A pending code stays valid this long after the device last asked for it. */
export const ENROLLMENT_CODE_TTL_MS = 10 * 60_000
/** Codes are six decimal digits (what a small display shows and a person types). */
export const ENROLLMENT_CODE_PATTERN = /^[0-9]{6}$/
/** Largest JSON a device may store about itself. */
const MAX_INFO_BYTES = 4096
const DEVICE_ID = /^[0-9A-Za-z:._-]{1,64}$/
const INSTANCE_ID = /^[0-9A-Za-z:._-]{1,128}$/

/** What a device says when it asks to be let in. */
export interface DeviceAnnouncement {
  /** Hardware identity (a MAC address); compared case-insensitively. */
  readonly deviceId: string
  /** The device's install instance (a UUID it generated), which a binding must match. */
  readonly instanceId: string
  /** Protocol family, set by the transport ("xiaozhi"); the kind of a client a claim creates. */
  readonly kind: string
  /** What the device reported about itself (board, firmware version), kept for the console. */
  readonly info?: Readonly<Record<string, unknown>> | null
}

export type EnrollmentAnswer =
  /** Nobody claimed this device yet: show `code`; it works until `expiresAt` unless asked again. */
  | { readonly state: 'pending'; readonly code: string; readonly expiresAt: number }
  /** The device belongs to a client: its credential. */
  | { readonly state: 'bound'; readonly workspaceId: string; readonly clientId: string; readonly devicePassword: string }

export interface ClaimRequest {
  readonly code: string
  readonly workspaceId: string
  /** The client the device becomes; created (with the enrollment's kind) when it does not exist. */
  readonly clientId: string
  /** Room to map the client to (created clients and existing ones alike); omitted: unchanged. */
  readonly room?: string | null
  /** Display name of a client the claim creates. */
  readonly name?: string | null
}

export interface ClaimResult {
  readonly deviceId: string
  readonly workspaceId: string
  readonly clientId: string
  readonly kind: string
  readonly room: string | null
  /** True when the claim created the client. */
  readonly clientCreated: boolean
  readonly boundAt: number
}

const normalizeDeviceId = (deviceId: string) => deviceId.toLowerCase()

export class DeviceEnrollment {
  constructor(
    private readonly storage: StorageShape,
    private readonly devicePasswords: DevicePasswords,
    private readonly clock: ClockShape,
  ) {}

  /**
   * A device asks to be let in: its credential when it is bound (a device password is created for
   * its client if it has none), else its pending code (the same one while it keeps asking).
   */
  announce(a: DeviceAnnouncement): EnrollmentAnswer {
    if (!DEVICE_ID.test(a.deviceId)) throw new ValidationFailed({ field: 'deviceId', message: 'device id: 1-64 letters, digits, ":", ".", "_" or "-"' })
    if (!INSTANCE_ID.test(a.instanceId)) throw new ValidationFailed({ field: 'instanceId', message: 'instance id: 1-128 letters, digits, ":", ".", "_" or "-"' })
    if (!isKind(a.kind)) throw new ValidationFailed({ field: 'kind', message: 'kind: 1-32 lower-case letters, digits, ".", "_" or "-"' })
    const info = boundedInfo(a.info ?? null)
    const deviceId = normalizeDeviceId(a.deviceId)
    const now = this.clock.now()
    const binding = this.storage.deviceEnrollments.binding(deviceId)
    if (binding && binding.instanceId === a.instanceId) {
      const password = this.passwordOf(binding)
      return { state: 'bound', workspaceId: binding.workspaceId, clientId: binding.clientId, devicePassword: password }
    }
    return this.storage.transaction(() => {
      this.storage.deviceEnrollments.prunePending(now)
      const expiresAt = now + ENROLLMENT_CODE_TTL_MS
      const pending = this.storage.deviceEnrollments.pending(deviceId, a.instanceId)
      if (pending) {
        this.storage.deviceEnrollments.touchPending(deviceId, a.instanceId, expiresAt, info)
        return { state: 'pending', code: pending.code, expiresAt }
      }
      const code = this.freshCode()
      this.storage.deviceEnrollments.insertPending({ deviceId, instanceId: a.instanceId, code, kind: a.kind, info, createdAt: now, expiresAt })
      return { state: 'pending', code, expiresAt } as const
    })
  }

  /**
   * Bind the device waiting with `code` to a client of a workspace (creating the client if needed).
   * NotFound when no device waits with that code; Conflict when the client already has another device.
   */
  claim(r: ClaimRequest, by: ChangeAuthor | null = null): ClaimResult {
    if (!ENROLLMENT_CODE_PATTERN.test(r.code)) throw new ValidationFailed({ field: 'code', message: 'code: exactly 6 digits, the number the device shows' })
    if (!isClientId(r.clientId)) {
      throw new ValidationFailed({ field: 'clientId', message: 'clientId: 1-128 letters, digits, ".", "_", ":" or "-", not starting with eph_' })
    }
    if (r.room != null && !isRoomName(r.room)) throw new ValidationFailed({ field: 'room', message: 'room: 1-128 letters, digits, ".", "_", ":" or "-"' })
    if (r.name != null && !isDisplayName(r.name)) throw new ValidationFailed({ field: 'name', message: 'name: 1-200 printable characters' })
    const now = this.clock.now()
    const result = this.storage.transaction((): ClaimResult => {
      if (!this.storage.workspaces.get(r.workspaceId)) throw new WorkspaceNotFound({ message: `no workspace ${r.workspaceId}` })
      this.storage.deviceEnrollments.prunePending(now)
      const pending = this.storage.deviceEnrollments.pendingByCode(r.code)
      if (!pending) throw new NotFound({
          message: `no device is waiting for activation with code ${r.code}: the code is unknown, expired (a code lasts 10 minutes after the device last asked) or already used`,
        })
      const taken = this.storage.deviceEnrollments.bindingOfClient(r.workspaceId, r.clientId)
      if (taken && taken.deviceId !== pending.deviceId) {
        throw new Conflict({ message: `client ${r.clientId} already has a device (${taken.deviceId}); delete the client or use another one` })
      }
      let client = this.storage.clients.get(r.workspaceId, r.clientId)
      const clientCreated = client === null
      if (client === null) {
        client = {
          workspaceId: r.workspaceId, clientId: r.clientId, name: r.name ?? null, kind: pending.kind, room: r.room ?? null,
          ephemeral: false, expiresAt: null, tokensNotBefore: now, createdAt: now, updatedAt: now,
        }
        this.storage.clients.insert(client)
        this.storage.feed.record({ kind: 'client.created', workspaceId: r.workspaceId, subject: r.clientId, at: now, by, client })
      } else if (r.room !== undefined && r.room !== client.room) {
        const before = client
        const after = this.storage.clients.update(r.workspaceId, r.clientId, { room: r.room }, now)
        if (after) {
          client = after
          this.storage.feed.record({ kind: 'client.updated', workspaceId: r.workspaceId, subject: r.clientId, at: now, by, before, after })
        }
      }
      // A device bound elsewhere before (another workspace, another client) moves here.
      this.storage.deviceEnrollments.putBinding({
        deviceId: pending.deviceId, instanceId: pending.instanceId, workspaceId: r.workspaceId, clientId: r.clientId,
        kind: pending.kind, info: pending.info, boundAt: now,
      })
      this.storage.deviceEnrollments.deletePending(pending.deviceId)
      if (!this.storage.devicePasswords.get(r.workspaceId, r.clientId)) this.devicePasswords.reset(r.workspaceId, r.clientId, by)
      return {
        deviceId: pending.deviceId, workspaceId: r.workspaceId, clientId: r.clientId, kind: pending.kind,
        room: client.room, clientCreated, boundAt: now,
      }
    })
    return result
  }

  /** Where a device stands, without changing anything (a device polling for its activation). */
  status(deviceId: string, instanceId: string): 'bound' | 'pending' | 'unknown' {
    const id = normalizeDeviceId(deviceId)
    if (this.storage.deviceEnrollments.binding(id)?.instanceId === instanceId) return 'bound'
    const pending = this.storage.deviceEnrollments.pending(id, instanceId)
    return pending !== null && pending.expiresAt > this.clock.now() ? 'pending' : 'unknown'
  }

  /** Devices bound to clients of a workspace, by device id. */
  bindings(workspaceId: string, q: { after?: string; limit?: number } = {}): DeviceBindingRecord[] {
    return this.storage.deviceEnrollments.listBindings(workspaceId, { after: q.after, limit: q.limit ?? 1000 })
  }

  /** Forget a device's binding (it asks for a new code next time); false when it was not bound here. */
  unbind(workspaceId: string, deviceId: string): boolean {
    return this.storage.deviceEnrollments.deleteBinding(workspaceId, normalizeDeviceId(deviceId))
  }

  private passwordOf(binding: DeviceBindingRecord): string {
    if (this.storage.devicePasswords.get(binding.workspaceId, binding.clientId)) {
      return this.devicePasswords.show(binding.workspaceId, binding.clientId).password
    }
    return this.devicePasswords.reset(binding.workspaceId, binding.clientId).password
  }

  private freshCode(): string {
    for (let i = 0; i < 20; i++) {
      const code = String(randomInt(0, 1_000_000)).padStart(6, '0')
      if (!this.storage.deviceEnrollments.pendingByCode(code)) return code
    }
    throw new Conflict({ message: 'no free activation code; try again' })
  }
}

const boundedInfo = (info: Readonly<Record<string, unknown>> | null): Readonly<Record<string, unknown>> | null => {
  if (info === null) return null
  const text = JSON.stringify(info)
  return Buffer.byteLength(text) <= MAX_INFO_BYTES ? info : null
}
