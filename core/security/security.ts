/**
 * The security domain as one service: API keys, the signing keyring, client tokens, device
 * passwords, revocations, and the admission check every transport runs on a terminal's
 * credential. The CLI builds it directly on a storage handle; the engine provides it as a Layer.
 */
import * as Context from 'effect/Context'
import * as Effect from 'effect/Effect'
import * as Layer from 'effect/Layer'
import { Clock, type ClockShape } from '../clock.js'
import { ClientNotFound, StorageUnavailable, TokenExpired, TokenRevoked, ValidationFailed } from '../errors.js'
import { newWorkspaceId } from '../ids.js'
import type { ClientRecord } from '../storage/clients.js'
import { Storage, type StorageShape } from '../storage/storage.js'
import type { WorkspaceRecord } from '../storage/workspaces.js'
import { ApiKeys } from './apiKeys.js'
import { ClientTokens } from './clientTokens.js'
import { DeviceEnrollment } from './deviceEnrollment.js'
import { DevicePasswords } from './devicePasswords.js'
import { MasterKey, type MasterKeyShape } from './masterKey.js'
import { Revocations } from './revocations.js'
import { SigningKeyring } from './signingKeyring.js'

/** What a terminal presents: a client token (any transport) or a device password (MQTT). */
export type TerminalCredential = { readonly token: string } | { readonly devicePassword: string }

export interface TerminalIdentity {
  readonly workspaceId: string
  readonly clientId: string
  readonly client: ClientRecord
  readonly credential:
    | { readonly kind: 'token'; readonly jti: string; readonly expiresAt: number | null }
    | { readonly kind: 'devicePassword' }
}

export interface SecurityShape {
  readonly apiKeys: ApiKeys
  readonly keyring: SigningKeyring
  readonly tokens: ClientTokens
  readonly devicePasswords: DevicePasswords
  /** Devices that enroll by code: announce (transports) and claim (console, CLI). */
  readonly deviceEnrollment: DeviceEnrollment
  readonly revocations: Revocations
  /** Webhook signing secrets sealed under the master key (stored sealed, opened to sign). */
  readonly webhookSecrets: SecretBox
  /** Create a workspace with its first signing secret. */
  createWorkspace(name: string): WorkspaceRecord
  /** Admission: verify a terminal's credential and load its client record. */
  authenticateTerminal(credential: TerminalCredential): Promise<TerminalIdentity>
}

/** Seals and opens text secrets of one purpose under the master key (AES-GCM, masterKey.ts). */
export interface SecretBox {
  seal(secret: string): string
  open(sealed: string): string
}

export class Security extends Context.Service<Security, SecurityShape>()('hark/Security') {}

const WORKSPACE_NAME = /^[\p{L}\p{N}][\p{L}\p{N} ._-]{0,63}$/u

/** A workspace name as given, or ValidationFailed (creation and rename share the rule). */
export const checkWorkspaceName = (name: string): string => {
  if (!WORKSPACE_NAME.test(name)) {
    throw new ValidationFailed({
      field: 'name',
      message: 'workspace name: 1-64 letters, digits, spaces, ".", "_" or "-", starting with a letter or digit',
    })
  }
  return name
}

export const makeSecurity = (
  storage: StorageShape,
  masterKey: MasterKeyShape,
  clock: ClockShape,
  opts: { secretGraceSeconds: number },
): SecurityShape => {
  const revocations = new Revocations(storage, clock)
  const keyring = new SigningKeyring(storage, masterKey, clock, opts.secretGraceSeconds * 1000)
  const tokens = new ClientTokens(storage, keyring, revocations, clock)
  const devicePasswords = new DevicePasswords(storage, masterKey, clock)

  const loadClient = (workspaceId: string, clientId: string): ClientRecord => {
    const client = storage.clients.get(workspaceId, clientId)
    if (!client) throw new ClientNotFound({ message: 'the client of this credential no longer exists' })
    if (client.expiresAt !== null && client.expiresAt <= clock.now()) {
      throw new TokenExpired({ message: 'ephemeral client expired' })
    }
    return client
  }

  return {
    apiKeys: new ApiKeys(storage, clock),
    keyring,
    tokens,
    devicePasswords,
    deviceEnrollment: new DeviceEnrollment(storage, devicePasswords, clock),
    revocations,
    webhookSecrets: {
      seal: (secret) => masterKey.seal('webhook-secret', Buffer.from(secret)),
      open: (sealed) => masterKey.open('webhook-secret', sealed).toString(),
    },
    createWorkspace: (name) => {
      checkWorkspaceName(name)
      const record = { workspaceId: newWorkspaceId(), name, createdAt: clock.now() }
      storage.transaction(() => {
        storage.workspaces.insert(record)
        keyring.createInitial(record.workspaceId)
        storage.feed.record({ kind: 'workspace.created', workspaceId: record.workspaceId, subject: null, at: record.createdAt })
      })
      return record
    },
    authenticateTerminal: async (credential) => {
      if ('token' in credential) {
        const t = await tokens.verify(credential.token)
        const client = loadClient(t.workspaceId, t.clientId)
        if (t.issuedAt < client.tokensNotBefore) throw new TokenRevoked({ message: 'token revoked' })
        return {
          workspaceId: t.workspaceId,
          clientId: t.clientId,
          client,
          credential: { kind: 'token', jti: t.jti, expiresAt: t.expiresAt },
        }
      }
      const d = devicePasswords.authenticate(credential.devicePassword)
      return {
        workspaceId: d.workspaceId,
        clientId: d.clientId,
        client: loadClient(d.workspaceId, d.clientId),
        credential: { kind: 'devicePassword' },
      }
    },
  }
}

export const securityLayer = (opts: { secretGraceSeconds: number }) =>
  Layer.effect(
    Security,
    Effect.gen(function* () {
      const storage = yield* Storage
      const masterKey = yield* MasterKey
      const clock = yield* Clock
      const security = makeSecurity(storage, masterKey, clock, opts)
      // lastUsedAt is batched in memory: write it every few seconds and once more at shutdown
      // (best effort: with the database primary unreachable, the last few seconds are dropped).
      yield* Effect.addFinalizer(() =>
        Effect.sync(() => {
          try {
            security.apiKeys.flushLastUsed()
          } catch (e) {
            if (!(e instanceof StorageUnavailable)) throw e
          }
        }),
      )
      return security
    }),
  )
