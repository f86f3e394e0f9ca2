/**
 * The operator master key (32 bytes) and the subkeys derived from it. It is given by env
 * (HARK_SECURITY_MASTER_KEY) or kept in a 0600 file in the data dir, generated on first start.
 * Nothing encrypted under it can be read without it, so losing the file loses device passwords
 * and signing secrets.
 */
import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto'
import { chmodSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import * as Context from 'effect/Context'
import { ConfigError } from '../configError.js'

export interface MasterKeyShape {
  /** AES-256-GCM seal under a purpose-bound subkey; output is base64(iv | tag | ciphertext). */
  seal(purpose: SealPurpose, plaintext: Buffer): string
  open(purpose: SealPurpose, sealed: string): Buffer
  /** Keyed hash (HMAC-SHA256, hex) for looking secrets up without storing them in the clear. */
  lookupHash(purpose: LookupPurpose, value: string): string
}

export type SealPurpose = 'signing-secret' | 'device-password' | 'webhook-secret'
export type LookupPurpose = 'device-password'

export class MasterKey extends Context.Service<MasterKey, MasterKeyShape>()('hark/MasterKey') {}

const KEY_BYTES = 32

const decodeKey = (text: string, fail: (reason: string) => Error): Buffer => {
  const key = Buffer.from(text.trim(), 'base64')
  if (key.length !== KEY_BYTES) throw fail(`must be base64 of ${KEY_BYTES} bytes (got ${key.length})`)
  return key
}

/** A wrong key given as a setting is a config error naming the setting; a wrong key file is not. */
const inSetting = (reason: string) => new ConfigError('security.masterKey', 'settings', reason)
const inFile = (file: string) => (reason: string) => new Error(`master key from ${file} ${reason}`)

/**
 * Read the master key: the explicit value wins; else the file, created (0600, exclusive) when
 * absent, so the CLI and the engine starting at once agree on one key. With `generate: false`
 * (a database on a libSQL server, shared by nodes that must all hold the same key) a missing
 * file is an error instead.
 */
export const loadMasterKey = (opts: { value: string | null; file: string; generate?: boolean }): { key: Buffer; generated: boolean } => {
  if (opts.value) return { key: decodeKey(opts.value, inSetting), generated: false }
  if (opts.generate === false && !existsSync(opts.file)) {
    throw new ConfigError(
      'security.masterKey',
      'settings',
      `with storage.url every node and the CLI need the same master key, and ${opts.file} does not exist: give the key (HARK_SECURITY_MASTER_KEY) or an existing security.masterKeyFile; none is generated`,
    )
  }
  try {
    writeFileSync(opts.file, randomBytes(KEY_BYTES).toString('base64') + '\n', { mode: 0o600, flag: 'wx' })
    return { key: decodeKey(readFileSync(opts.file, 'utf8'), inFile(opts.file)), generated: true }
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e
  }
  if ((statSync(opts.file).mode & 0o077) !== 0) chmodSync(opts.file, 0o600)
  return { key: decodeKey(readFileSync(opts.file, 'utf8'), inFile(opts.file)), generated: false }
}

/** Refuse a master key that does not open `sealed`, a signing secret of the database (null: none yet). */
export const checkMasterKey = (masterKey: MasterKeyShape, sealed: string | null): void => {
  if (sealed === null) return
  try {
    masterKey.open('signing-secret', sealed)
  } catch {
    throw new ConfigError(
      'security.masterKey',
      'settings',
      "it does not open this database's signing secrets: every node and the CLI on one database need the same master key",
    )
  }
}

export const makeMasterKey = (key: Buffer): MasterKeyShape => {
  const sub = (info: string) => Buffer.from(hkdfSync('sha256', key, 'hark', info, KEY_BYTES))
  const sealKeys: Record<SealPurpose, Buffer> = {
    'signing-secret': sub('seal:signing-secret'),
    'device-password': sub('seal:device-password'),
    'webhook-secret': sub('seal:webhook-secret'),
  }
  const lookupKeys: Record<LookupPurpose, Buffer> = { 'device-password': sub('lookup:device-password') }
  return {
    seal: (purpose, plaintext) => {
      const iv = randomBytes(12)
      const cipher = createCipheriv('aes-256-gcm', sealKeys[purpose], iv)
      const ct = Buffer.concat([cipher.update(plaintext), cipher.final()])
      return Buffer.concat([iv, cipher.getAuthTag(), ct]).toString('base64')
    },
    open: (purpose, sealed) => {
      const buf = Buffer.from(sealed, 'base64')
      const decipher = createDecipheriv('aes-256-gcm', sealKeys[purpose], buf.subarray(0, 12))
      decipher.setAuthTag(buf.subarray(12, 28))
      return Buffer.concat([decipher.update(buf.subarray(28)), decipher.final()])
    },
    lookupHash: (purpose, value) => createHmac('sha256', lookupKeys[purpose]).update(value).digest('hex'),
  }
}
