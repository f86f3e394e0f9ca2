/**
 * The workspace's security-relevant operations, each recorded in the audit log with its actor:
 * API keys (the value is returned once, never logged or stored), device passwords (revealed —
 * generated on first reveal — or reset, which drops sessions that used the old one) and signing
 * secret rotation, and adding a device by the code it shows (its credential is the client's device
 * password). The console and the operator CLI both call these.
 */
import { authorOf, recordAudit, type Actor } from '../people/audit.js'
import type { ApiKeyInfo } from '../security/apiKeys.js'
import type { ClaimRequest } from '../security/deviceEnrollment.js'
import { requireClient } from './clients.js'
import type { OperationServices } from './services.js'
import { isoTime, isoTimeOrNull } from './views.js'

type Deps = Pick<OperationServices, 'storage' | 'clock' | 'security'>

export const apiKeyView = (k: ApiKeyInfo) => ({
  keyId: k.keyId,
  name: k.name,
  createdAt: isoTime(k.createdAt),
  lastUsedAt: isoTimeOrNull(k.lastUsedAt),
  revokedAt: isoTimeOrNull(k.revokedAt),
})

export const createApiKey = ({ storage, clock, security }: Deps, workspaceId: string, name: string | null, actor: Actor) =>
  storage.transaction(() => {
    const k = security.apiKeys.create(workspaceId, name)
    recordAudit(storage, clock, actor, { action: 'apikey.created', workspaceId, target: k.keyId, detail: { name } })
    return k
  })

export const revokeApiKey = ({ storage, clock, security }: Deps, workspaceId: string, keyId: string, actor: Actor) =>
  storage.transaction(() => {
    security.apiKeys.revoke(workspaceId, keyId, authorOf(actor))
    recordAudit(storage, clock, actor, { action: 'apikey.revoked', workspaceId, target: keyId })
    return { keyId, revoked: true as const }
  })

/**
 * The device password of a client, audited. The console generates it on the first reveal
 * (`generate`); without it a client that has none is a 404, as for `hark device-password show`.
 */
export const revealDevicePassword = (deps: Deps, workspaceId: string, clientId: string, actor: Actor, options: { generate: boolean }) => {
  const { storage, clock, security } = deps
  requireClient(deps, workspaceId, clientId)
  return storage.transaction(() => {
    const generated = options.generate && storage.devicePasswords.get(workspaceId, clientId) === null
    const r = generated ? security.devicePasswords.reset(workspaceId, clientId, authorOf(actor)) : security.devicePasswords.show(workspaceId, clientId)
    recordAudit(storage, clock, actor, { action: 'device_password.revealed', workspaceId, target: clientId, detail: { generated } })
    return r
  })
}

/** A new device password; the old one stops working at once and sessions that used it are dropped. */
export const resetDevicePassword = (deps: Deps, workspaceId: string, clientId: string, actor: Actor) => {
  const { storage, clock, security } = deps
  requireClient(deps, workspaceId, clientId)
  return storage.transaction(() => {
    const r = security.devicePasswords.reset(workspaceId, clientId, authorOf(actor))
    recordAudit(storage, clock, actor, { action: 'device_password.reset', workspaceId, target: clientId })
    return r
  })
}

/** A new signing secret; the previous one verifies until its grace period ends. */
export const rotateSigningSecret = ({ storage, clock, security }: Deps, workspaceId: string, actor: Actor) =>
  storage.transaction(() => {
    const r = security.keyring.rotate(workspaceId, authorOf(actor))
    recordAudit(storage, clock, actor, { action: 'secret.rotated', workspaceId, target: r.kid, detail: { previousRetiresAt: isoTime(r.previousRetiresAt) } })
    return { kid: r.kid, previousRetiresAt: isoTime(r.previousRetiresAt) }
  })

/**
 * Bind the device showing `code` to a client (created when it does not exist), audited as
 * `device.added`: core's device enrollment claim, the one `hark xiaozhi activate` makes. The
 * device's next announcement (its OTA poll) is answered with the client's credentials.
 */
export const claimDevice = ({ storage, clock, security }: Deps, workspaceId: string, request: Omit<ClaimRequest, 'workspaceId'>, actor: Actor) =>
  storage.transaction(() => {
    const r = security.deviceEnrollment.claim({ ...request, workspaceId }, authorOf(actor))
    recordAudit(storage, clock, actor, {
      action: 'device.added',
      workspaceId,
      target: r.clientId,
      detail: { deviceId: r.deviceId, kind: r.kind, clientCreated: r.clientCreated },
    })
    return r
  })
