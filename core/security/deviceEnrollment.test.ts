import { randomBytes } from 'node:crypto'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { ManualClock } from '../clock.js'
import { tempDir } from '../test/helpers.js'
import { openStorage, type StorageShape } from '../storage/storage.js'
import { ENROLLMENT_CODE_TTL_MS } from './deviceEnrollment.js'
import { makeMasterKey } from './masterKey.js'
import { makeSecurity, type SecurityShape } from './security.js'

let dir: ReturnType<typeof tempDir>
let storage: StorageShape
let clock: ManualClock
let security: SecurityShape
let workspaceId: string

const T0 = Date.UTC(2026, 10, 24, 9, 0, 0)
const device = { deviceId: 'AA:BB:CC:00:11:22', instanceId: '7f0c1a52-0000-4000-8000-000000000001', kind: 'xiaozhi' }

beforeEach(() => {
  dir = tempDir()
  storage = openStorage(join(dir.path, 'hark.db'))
  clock = new ManualClock(T0)
  security = makeSecurity(storage, makeMasterKey(randomBytes(32)), clock, { secretGraceSeconds: 3600 })
  workspaceId = security.createWorkspace('acme').workspaceId
})
afterEach(() => {
  storage.close()
  dir.remove()
})

const enrollment = () => security.deviceEnrollment

describe('device enrollment by code', () => {
  it('gives an unknown device a 6-digit code, the same one while it keeps asking', () => {
    const first = enrollment().announce({ ...device, info: { board: 'bread-compact-wifi' } })
    expect(first.state).toBe('pending')
    if (first.state !== 'pending') return
    expect(first.code).toMatch(/^[0-9]{6}$/)
    clock.advance(ENROLLMENT_CODE_TTL_MS - 1)
    const again = enrollment().announce(device)
    expect(again).toEqual({ state: 'pending', code: first.code, expiresAt: clock.now() + ENROLLMENT_CODE_TTL_MS })
  })

  it('claims a code into a new client with the device password as its credential', () => {
    const pending = enrollment().announce(device)
    if (pending.state !== 'pending') throw new Error('expected a code')
    const claim = enrollment().claim({ code: pending.code, workspaceId, clientId: 'kitchen-speaker', room: 'kitchen' })
    expect(claim).toMatchObject({ deviceId: 'aa:bb:cc:00:11:22', clientId: 'kitchen-speaker', kind: 'xiaozhi', room: 'kitchen', clientCreated: true })
    expect(storage.clients.get(workspaceId, 'kitchen-speaker')).toMatchObject({ kind: 'xiaozhi', room: 'kitchen' })
    const bound = enrollment().announce(device)
    expect(bound).toMatchObject({ state: 'bound', workspaceId, clientId: 'kitchen-speaker' })
    if (bound.state !== 'bound') return
    expect(bound.devicePassword).toMatch(/^hkd_/)
    expect(security.devicePasswords.authenticate(bound.devicePassword)).toEqual({ workspaceId, clientId: 'kitchen-speaker' })
    // The code is spent.
    expect(() => enrollment().claim({ code: pending.code, workspaceId, clientId: 'other' })).toThrow(/no device is waiting/)
    // The MAC alone is not enough: another install instance gets a code of its own.
    expect(enrollment().announce({ ...device, instanceId: 'someone-else' }).state).toBe('pending')
  })

  it('keeps an existing client and its password, moving it to the given room', () => {
    storage.clients.insert({
      workspaceId, clientId: 'dev-1', name: null, kind: 'device', room: 'lobby', ephemeral: false, expiresAt: null,
      tokensNotBefore: T0, createdAt: T0, updatedAt: T0,
    })
    const { password } = security.devicePasswords.reset(workspaceId, 'dev-1')
    const pending = enrollment().announce(device)
    if (pending.state !== 'pending') throw new Error('expected a code')
    expect(enrollment().claim({ code: pending.code, workspaceId, clientId: 'dev-1', room: 'hall' })).toMatchObject({ clientCreated: false, room: 'hall' })
    expect(enrollment().announce(device)).toMatchObject({ state: 'bound', devicePassword: password })
  })

  it('refuses bad codes, unknown workspaces, expired codes and a second device on one client', () => {
    expect(() => enrollment().claim({ code: '12345', workspaceId, clientId: 'x' })).toThrow(/6 digits/)
    const a = enrollment().announce(device)
    if (a.state !== 'pending') throw new Error('expected a code')
    expect(() => enrollment().claim({ code: a.code, workspaceId: 'ws_nope', clientId: 'x' })).toThrow(/no workspace/)
    expect(() => enrollment().claim({ code: a.code, workspaceId, clientId: 'eph_x' })).toThrow(/clientId/)
    enrollment().claim({ code: a.code, workspaceId, clientId: 'speaker' })
    const b = enrollment().announce({ deviceId: 'aa:bb:cc:00:11:33', instanceId: 'i-2', kind: 'xiaozhi' })
    if (b.state !== 'pending') throw new Error('expected a code')
    expect(() => enrollment().claim({ code: b.code, workspaceId, clientId: 'speaker' })).toThrow(/already has a device/)
    clock.advance(ENROLLMENT_CODE_TTL_MS)
    expect(() => enrollment().claim({ code: b.code, workspaceId, clientId: 'speaker-2' })).toThrow(/no device is waiting/)
  })

  it('forgets the binding when the client is deleted: the device asks for a new code', () => {
    const pending = enrollment().announce(device)
    if (pending.state !== 'pending') throw new Error('expected a code')
    enrollment().claim({ code: pending.code, workspaceId, clientId: 'speaker' })
    expect(enrollment().bindings(workspaceId).map((b) => b.deviceId)).toEqual(['aa:bb:cc:00:11:22'])
    storage.clients.delete(workspaceId, 'speaker')
    expect(enrollment().bindings(workspaceId)).toEqual([])
    expect(enrollment().announce(device).state).toBe('pending')
  })

  it('refuses malformed device ids', () => {
    expect(() => enrollment().announce({ ...device, deviceId: 'has space' })).toThrow(/device id/)
    expect(() => enrollment().announce({ ...device, instanceId: '' })).toThrow(/instance id/)
  })
})

describe('device enrollment status', () => {
  it('says unknown, pending, then bound, for the claimed instance only', () => {
    expect(enrollment().status(device.deviceId, device.instanceId)).toBe('unknown')
    const pending = enrollment().announce(device)
    if (pending.state !== 'pending') throw new Error('expected a code')
    expect(enrollment().status(device.deviceId, device.instanceId)).toBe('pending')
    enrollment().claim({ code: pending.code, workspaceId, clientId: 'speaker' })
    expect(enrollment().status(device.deviceId.toLowerCase(), device.instanceId)).toBe('bound')
    expect(enrollment().status(device.deviceId, 'another-instance')).toBe('unknown')
  })
})
