import { randomBytes } from 'node:crypto'
import { readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { SignJWT, decodeJwt, decodeProtectedHeader, jwtVerify } from 'jose'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { ManualClock } from '../clock.js'
import { tempDir } from '../test/helpers.js'
import { openStorage, type StorageShape } from '../storage/storage.js'
import { hashApiKey } from './apiKeys.js'
import { loadMasterKey, makeMasterKey, type MasterKeyShape } from './masterKey.js'
import { makeSecurity, type SecurityShape } from './security.js'

let dir: ReturnType<typeof tempDir>
let storage: StorageShape
let clock: ManualClock
let security: SecurityShape
let workspaceId: string
let masterKey: MasterKeyShape

const T0 = Date.UTC(2026, 10, 21, 12, 0, 0)

const addClient = (clientId: string, at = clock.now()) =>
  storage.clients.insert({
    workspaceId, clientId, name: null, kind: null, room: 'lobby', ephemeral: false, expiresAt: null,
    tokensNotBefore: at, createdAt: at, updatedAt: at,
  })

beforeEach(() => {
  dir = tempDir()
  storage = openStorage(join(dir.path, 'hark.db'))
  clock = new ManualClock(T0)
  masterKey = makeMasterKey(randomBytes(32))
  security = makeSecurity(storage, masterKey, clock, { secretGraceSeconds: 3600 })
  workspaceId = security.createWorkspace('acme').workspaceId
  addClient('dev-1')
})
afterEach(() => {
  storage.close()
  dir.remove()
})

describe('API keys', () => {
  it('are hk_ + 32 random bytes, shown once, stored only as a hash', () => {
    const { apiKey, keyId } = security.apiKeys.create(workspaceId, 'backend')
    expect(apiKey).toMatch(/^hk_[A-Za-z0-9_-]{43}$/)
    expect(Buffer.from(apiKey.slice(3), 'base64url')).toHaveLength(32)
    const raw = readFileSync(storage.file).toString('latin1') + readFileSync(storage.file + '-wal').toString('latin1')
    expect(raw).not.toContain(apiKey)
    const row = storage.db.prepare('SELECT * FROM api_keys WHERE key_id = ?').get(keyId) as Record<string, unknown>
    expect(row.key_hash).toBe(hashApiKey(apiKey))
    expect(Object.values(row)).not.toContain(apiKey)
  })

  it('authenticate the workspace, and refuse missing, malformed, unknown and revoked keys', () => {
    const a = security.apiKeys.create(workspaceId, 'a')
    const b = security.apiKeys.create(workspaceId, 'b')
    expect(security.apiKeys.authenticate(`Bearer ${a.apiKey}`)).toEqual({ workspaceId, keyId: a.keyId })
    expect(security.apiKeys.authenticate(`Bearer ${b.apiKey}`)).toEqual({ workspaceId, keyId: b.keyId })
    for (const header of [undefined, '', a.apiKey, `Basic ${a.apiKey}`, 'Bearer hk_short', `Bearer hk_${'A'.repeat(43)}`]) {
      expect(() => security.apiKeys.authenticate(header)).toThrow(expect.objectContaining({ _tag: 'ApiKeyInvalid' }))
    }
    security.apiKeys.revoke(workspaceId, a.keyId)
    expect(() => security.apiKeys.authenticate(`Bearer ${a.apiKey}`)).toThrow(expect.objectContaining({ _tag: 'ApiKeyInvalid' }))
    expect(security.apiKeys.authenticate(`Bearer ${b.apiKey}`).keyId).toBe(b.keyId)
    expect(() => security.apiKeys.revoke(workspaceId, 'key_nope')).toThrow(expect.objectContaining({ _tag: 'ApiKeyNotFound' }))
  })

  it('batch lastUsedAt in memory and write it on flush', () => {
    const a = security.apiKeys.create(workspaceId, 'a')
    clock.advance(1000)
    security.apiKeys.authenticate(`Bearer ${a.apiKey}`)
    expect(storage.apiKeys.list(workspaceId)[0]!.lastUsedAt).toBeNull()
    expect(security.apiKeys.list(workspaceId)[0]!.lastUsedAt).toBe(T0 + 1000)
    expect(security.apiKeys.flushLastUsed()).toBe(1)
    expect(storage.apiKeys.list(workspaceId)[0]!.lastUsedAt).toBe(T0 + 1000)
    expect(security.apiKeys.flushLastUsed()).toBe(0)
  })
})

describe('client tokens', () => {
  it('carry iss, sub, aud, jti and kid, and no exp when long-lived', async () => {
    const t = await security.tokens.issue(workspaceId, 'dev-1', null)
    const claims = decodeJwt(t.token)
    expect(claims).toMatchObject({ iss: workspaceId, sub: 'dev-1', aud: 'service-client', jti: t.jti })
    expect(claims.exp).toBeUndefined()
    expect(claims).not.toHaveProperty('room')
    expect(decodeProtectedHeader(t.token)).toMatchObject({ alg: 'HS256', typ: 'JWT' })
    expect(t.expiresAt).toBeNull()
    const v = await security.tokens.verify(t.token)
    expect(v).toMatchObject({ workspaceId, clientId: 'dev-1', jti: t.jti, expiresAt: null })
  })

  it('verify with an independent implementation (jose) under the workspace secret', async () => {
    const t = await security.tokens.issue(workspaceId, 'dev-1', 600)
    const [secret] = storage.signingSecrets.live(workspaceId, clock.now())
    const raw = masterKey.open('signing-secret', secret!.secretEnc)
    const { payload, protectedHeader } = await jwtVerify(t.token, raw, {
      algorithms: ['HS256'], audience: 'service-client', issuer: workspaceId, currentDate: new Date(clock.now()),
    })
    expect(protectedHeader).toEqual({ alg: 'HS256', typ: 'JWT', kid: secret!.kid })
    expect(payload).toEqual({ iss: workspaceId, sub: 'dev-1', aud: 'service-client', jti: t.jti, iat: Math.floor(T0 / 1000), exp: Math.floor(T0 / 1000) + 600 })
    // and a token jose signs with that secret is accepted, while HS512 under the same secret is not
    const viaJose = await new SignJWT({ jti: t.jti }).setProtectedHeader({ alg: 'HS256', kid: secret!.kid })
      .setIssuer(workspaceId).setSubject('dev-1').setAudience('service-client').sign(raw)
    await expect(security.tokens.verify(viaJose)).resolves.toMatchObject({ clientId: 'dev-1' })
    const hs512 = await new SignJWT({ jti: t.jti }).setProtectedHeader({ alg: 'HS512', kid: secret!.kid })
      .setIssuer(workspaceId).setSubject('dev-1').setAudience('service-client').sign(raw)
    await expect(security.tokens.verify(hs512)).rejects.toMatchObject({ _tag: 'TokenInvalid' })
  })

  it('expire after their TTL', async () => {
    const t = await security.tokens.issue(workspaceId, 'dev-1', 60)
    expect(decodeJwt(t.token).exp).toBe(Math.floor(T0 / 1000) + 60)
    expect(t.expiresAt).toBe(T0 + 60_000)
    await expect(security.tokens.verify(t.token)).resolves.toMatchObject({ clientId: 'dev-1' })
    clock.advance(61_000)
    await expect(security.tokens.verify(t.token)).rejects.toMatchObject({ _tag: 'TokenExpired' })
  })

  it('reject tampering, other algorithms, other audiences and foreign workspaces', async () => {
    const t = await security.tokens.issue(workspaceId, 'dev-1', null)
    const [h, p, s] = t.token.split('.')
    const forged = JSON.parse(Buffer.from(p!, 'base64url').toString())
    forged.sub = 'dev-2'
    const tampered = `${h}.${Buffer.from(JSON.stringify(forged)).toString('base64url')}.${s}`
    const none = `${Buffer.from(JSON.stringify({ alg: 'none', kid: decodeProtectedHeader(t.token).kid })).toString('base64url')}.${p}.`
    const other = security.createWorkspace('other').workspaceId
    const wrongAud = await new SignJWT({ jti: t.jti })
      .setProtectedHeader({ alg: 'HS256', kid: decodeProtectedHeader(t.token).kid! })
      .setIssuer(workspaceId).setSubject('dev-1').setAudience('someone-else').sign(randomBytes(32))
    const otherIss = { ...decodeJwt(t.token), iss: other }
    const crossWorkspace = `${h}.${Buffer.from(JSON.stringify(otherIss)).toString('base64url')}.${s}`
    for (const bad of [tampered, none, wrongAud, crossWorkspace, 'not-a-jwt', '', 'a.b.c', t.token + 'x']) {
      await expect(security.tokens.verify(bad)).rejects.toMatchObject({ _tag: 'TokenInvalid' })
    }
  })

  it('reject the same forgeries once a valid token with that header has verified (kid → secret remembered)', async () => {
    const t = await security.tokens.issue(workspaceId, 'dev-1', null)
    await expect(security.tokens.verify(t.token)).resolves.toMatchObject({ workspaceId, clientId: 'dev-1' })
    const [h, p, s] = t.token.split('.')
    const claims = decodeJwt(t.token)
    const segment = (v: object) => Buffer.from(JSON.stringify(v)).toString('base64url')
    const other = security.createWorkspace('other').workspaceId
    // Same header, so the remembered (workspace, kid) is used: the payload's iss must still match it.
    const crossWorkspace = `${h}.${segment({ ...claims, iss: other })}.${s}`
    const tampered = `${h}.${segment({ ...claims, sub: 'dev-2' })}.${s}`
    const noIss = `${h}.${segment({ ...claims, iss: undefined })}.${s}`
    const raw = masterKey.open('signing-secret', storage.signingSecrets.live(workspaceId, clock.now())[0]!.secretEnc)
    // Signed with the right secret and the same header, but claiming the other workspace.
    const resigned = await new SignJWT({ ...claims, iss: other }).setProtectedHeader(decodeProtectedHeader(t.token) as { alg: string }).sign(raw)
    expect(resigned.split('.')[0]).toBe(h)
    const wrongAud = await new SignJWT({ ...claims, aud: 'someone-else' }).setProtectedHeader(decodeProtectedHeader(t.token) as { alg: string }).sign(raw)
    for (const bad of [crossWorkspace, tampered, noIss, resigned, wrongAud, `${h}.${p}.`, `${h}.${p}`]) {
      await expect(security.tokens.verify(bad)).rejects.toMatchObject({ _tag: 'TokenInvalid' })
    }
    // and the remembered header does not outlive its secret's grace period
    security.keyring.rotate(workspaceId)
    clock.advance(3600_000)
    await expect(security.tokens.verify(t.token)).rejects.toMatchObject({ _tag: 'TokenInvalid' })
  })

  it('keep verifying through a rotation until the grace period ends', async () => {
    const before = await security.tokens.issue(workspaceId, 'dev-1', null)
    const { kid } = security.keyring.rotate(workspaceId)
    const after = await security.tokens.issue(workspaceId, 'dev-1', null)
    expect(decodeProtectedHeader(after.token).kid).toBe(kid)
    expect(decodeProtectedHeader(before.token).kid).not.toBe(kid)
    await expect(security.tokens.verify(before.token)).resolves.toBeTruthy()
    clock.advance(3600_000 - 1)
    await expect(security.tokens.verify(before.token)).resolves.toBeTruthy()
    clock.advance(1)
    await expect(security.tokens.verify(before.token)).rejects.toMatchObject({ _tag: 'TokenInvalid' })
    await expect(security.tokens.verify(after.token)).resolves.toBeTruthy()
  })

  it('revoke one token by jti, and only in its own workspace', async () => {
    const a = await security.tokens.issue(workspaceId, 'dev-1', null)
    const b = await security.tokens.issue(workspaceId, 'dev-1', 600)
    const other = security.createWorkspace('other').workspaceId
    expect(() => security.tokens.revoke(other, a.jti)).toThrow(expect.objectContaining({ _tag: 'NotFound' }))
    security.tokens.revoke(workspaceId, a.jti)
    await expect(security.tokens.verify(a.token)).rejects.toMatchObject({ _tag: 'TokenRevoked' })
    await expect(security.tokens.verify(b.token)).resolves.toBeTruthy()
    // kept revoked after a reload from storage (a restart)
    security.revocations.reload()
    await expect(security.tokens.verify(a.token)).rejects.toMatchObject({ _tag: 'TokenRevoked' })
    // a long-lived token stays revoked however much time passes; pruning keeps its row
    clock.advance(400 * 86_400_000)
    storage.issuedTokens.prune(clock.now())
    security.revocations.reload()
    await expect(security.tokens.verify(a.token)).rejects.toMatchObject({ _tag: 'TokenRevoked' })
  })

  it('stop admitting a terminal once its client is deleted or its tokens are revoked', async () => {
    const t = await security.tokens.issue(workspaceId, 'dev-1', null)
    await expect(security.authenticateTerminal({ token: t.token })).resolves.toMatchObject({
      workspaceId, clientId: 'dev-1', credential: { kind: 'token', jti: t.jti },
    })
    clock.advance(5)
    storage.clients.revokeAllTokens(workspaceId, 'dev-1', clock.now())
    await expect(security.authenticateTerminal({ token: t.token })).rejects.toMatchObject({ _tag: 'TokenRevoked' })
    const fresh = await security.tokens.issue(workspaceId, 'dev-1', null)
    await expect(security.authenticateTerminal({ token: fresh.token })).resolves.toBeTruthy()
    storage.clients.delete(workspaceId, 'dev-1')
    await expect(security.authenticateTerminal({ token: fresh.token })).rejects.toMatchObject({ _tag: 'ClientNotFound' })
    // the same clientId created again does not revive tokens minted for the old one
    clock.advance(5)
    addClient('dev-1')
    await expect(security.authenticateTerminal({ token: fresh.token })).rejects.toMatchObject({ _tag: 'TokenRevoked' })
  })
})

describe('device passwords', () => {
  it('are hkd_ + 24 base62 (28 chars), encrypted at rest, viewable again', () => {
    const { password } = security.devicePasswords.reset(workspaceId, 'dev-1')
    expect(password).toMatch(/^hkd_[0-9A-Za-z]{24}$/)
    expect(password).toHaveLength(28)
    expect(security.devicePasswords.show(workspaceId, 'dev-1').password).toBe(password)
    const row = storage.db.prepare('SELECT * FROM device_passwords').get() as Record<string, string>
    expect(JSON.stringify(row)).not.toContain(password.slice(4))
    expect(security.devicePasswords.authenticate(password)).toEqual({ workspaceId, clientId: 'dev-1' })
  })

  it('reset makes the old one fail at once', async () => {
    const old = security.devicePasswords.reset(workspaceId, 'dev-1').password
    const fresh = security.devicePasswords.reset(workspaceId, 'dev-1').password
    expect(fresh).not.toBe(old)
    expect(() => security.devicePasswords.authenticate(old)).toThrow(expect.objectContaining({ _tag: 'DevicePasswordInvalid' }))
    await expect(security.authenticateTerminal({ devicePassword: fresh })).resolves.toMatchObject({
      clientId: 'dev-1', credential: { kind: 'devicePassword' },
    })
    await expect(security.authenticateTerminal({ devicePassword: old })).rejects.toMatchObject({ _tag: 'DevicePasswordInvalid' })
  })

  it('refuse malformed values and unknown clients', () => {
    for (const bad of ['', 'hkd_', 'hkd_short', `hkd_${'!'.repeat(24)}`, `hk_${'a'.repeat(25)}`]) {
      expect(() => security.devicePasswords.authenticate(bad)).toThrow(expect.objectContaining({ _tag: 'DevicePasswordInvalid' }))
    }
    expect(() => security.devicePasswords.reset(workspaceId, 'nobody')).toThrow(expect.objectContaining({ _tag: 'ClientNotFound' }))
    expect(() => security.devicePasswords.show(workspaceId, 'nobody')).toThrow(expect.objectContaining({ _tag: 'ClientNotFound' }))
  })

  it('cannot be read with another master key', () => {
    security.devicePasswords.reset(workspaceId, 'dev-1')
    const other = makeSecurity(storage, makeMasterKey(randomBytes(32)), clock, { secretGraceSeconds: 3600 })
    expect(() => other.devicePasswords.show(workspaceId, 'dev-1')).toThrow()
  })
})

describe('master key', () => {
  it('is generated once into a 0600 file and read back after', () => {
    const file = join(dir.path, 'master.key')
    const first = loadMasterKey({ value: null, file })
    expect(first.generated).toBe(true)
    expect(statSync(file).mode & 0o777).toBe(0o600)
    const second = loadMasterKey({ value: null, file })
    expect(second.generated).toBe(false)
    expect(second.key.equals(first.key)).toBe(true)
  })

  it('can come from the setting, and must be 32 bytes', () => {
    const key = randomBytes(32)
    expect(loadMasterKey({ value: key.toString('base64'), file: '/nonexistent/x' }).key.equals(key)).toBe(true)
    expect(() => loadMasterKey({ value: randomBytes(16).toString('base64'), file: '/x' })).toThrow(/32 bytes/)
  })
})

describe('workspaces', () => {
  it('get a hidden signing secret, sealed at rest', () => {
    const rows = storage.db.prepare('SELECT * FROM signing_secrets WHERE workspace_id = ?').all(workspaceId) as Array<Record<string, unknown>>
    expect(rows).toHaveLength(1)
    expect(Buffer.from(rows[0]!.secret_enc as string, 'base64').length).toBe(12 + 16 + 32)
  })

  it('validate names', () => {
    expect(() => security.createWorkspace('')).toThrow(expect.objectContaining({ _tag: 'ValidationFailed', field: 'name' }))
    expect(() => security.createWorkspace('x'.repeat(65))).toThrow(expect.objectContaining({ _tag: 'ValidationFailed' }))
    expect(security.createWorkspace('Acme Corp.').name).toBe('Acme Corp.')
  })
})
