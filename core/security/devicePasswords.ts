/**
 * Device access passwords for MQTT: `hkd_` + 24 base62 characters (28 in all, ~143 bits).
 * Stored sealed under the master key (so the console can show it again) with a keyed hash
 * to find the device at CONNECT. A reset replaces both in one write: the old value fails at once.
 */
import type { ClockShape } from '../clock.js'
import { ClientNotFound, DevicePasswordInvalid } from '../errors.js'
import { randomBase62 } from '../ids.js'
import type { ChangeAuthor } from '../storage/changes.js'
import type { StorageShape } from '../storage/storage.js'
import type { MasterKeyShape } from './masterKey.js'

export const DEVICE_PASSWORD_PREFIX = 'hkd_'
const DEVICE_PASSWORD_PATTERN = /^hkd_[0-9A-Za-z]{24}$/

export const isDevicePasswordShaped = (s: string) => DEVICE_PASSWORD_PATTERN.test(s)

export class DevicePasswords {
  constructor(
    private readonly storage: StorageShape,
    private readonly masterKey: MasterKeyShape,
    private readonly clock: ClockShape,
  ) {}

  /** Generate (or replace) a device's password and return it. */
  reset(workspaceId: string, clientId: string, by: ChangeAuthor | null = null): { clientId: string; password: string } {
    const password = DEVICE_PASSWORD_PREFIX + randomBase62(24)
    const now = this.clock.now()
    this.storage.transaction(() => {
      if (!this.storage.clients.get(workspaceId, clientId)) {
        throw new ClientNotFound({ message: `no client ${clientId} in this workspace` })
      }
      this.storage.devicePasswords.put({
        workspaceId,
        clientId,
        passwordEnc: this.masterKey.seal('device-password', Buffer.from(password)),
        lookupHash: this.masterKey.lookupHash('device-password', password),
        createdAt: now,
      })
      this.storage.feed.record({ kind: 'devicePassword.reset', workspaceId, subject: clientId, at: now, by })
    })
    return { clientId, password }
  }

  /** The current password, decrypted; ClientNotFound when the client or its password is absent. */
  show(workspaceId: string, clientId: string): { clientId: string; password: string } {
    const record = this.storage.devicePasswords.get(workspaceId, clientId)
    if (!record) throw new ClientNotFound({ message: `no device password for client ${clientId} in this workspace` })
    return { clientId, password: this.masterKey.open('device-password', record.passwordEnc).toString() }
  }

  /** Find the device a password belongs to; throws DevicePasswordInvalid. */
  authenticate(password: string): { workspaceId: string; clientId: string } {
    if (!isDevicePasswordShaped(password)) throw new DevicePasswordInvalid({ message: 'malformed device password' })
    const record = this.storage.devicePasswords.findByLookupHash(this.masterKey.lookupHash('device-password', password))
    if (!record) throw new DevicePasswordInvalid({ message: 'unknown device password' })
    return { workspaceId: record.workspaceId, clientId: record.clientId }
  }
}
