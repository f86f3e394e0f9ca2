/**
 * A data dir opened beside a running engine, or without one: storage on its libSQL file and the
 * security services on its master key, for the CLI's operator commands and for tools such as the
 * bench's seeders and verifiers. The engine opens the same files through its layers (engine.ts).
 */
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { systemClock, type ClockShape } from './clock.js'
import type { Settings } from './config.js'
import { loadMasterKey, makeMasterKey } from './security/masterKey.js'
import { makeSecurity, type SecurityShape } from './security/security.js'
import { openStorage, type StorageShape } from './storage/storage.js'

export interface DataDir {
  readonly storage: StorageShape
  readonly security: SecurityShape
  close(): void
}

/** Where the master key is read from (or generated into) when it is not given as a value. */
export const masterKeyFileOf = (settings: Settings): string => settings.security.masterKeyFile ?? join(settings.dataDir, 'master.key')

/** Open `settings.dataDir` (created when missing); `close` releases the libSQL file. */
export const openDataDir = (settings: Settings, clock: ClockShape = systemClock): DataDir => {
  mkdirSync(settings.dataDir, { recursive: true, mode: 0o700 })
  const storage = openStorage(join(settings.dataDir, 'hark.db'))
  const { key } = loadMasterKey({ value: settings.security.masterKey, file: masterKeyFileOf(settings) })
  const security = makeSecurity(storage, makeMasterKey(key), clock, { secretGraceSeconds: settings.security.secretGraceSeconds })
  return { storage, security, close: () => storage.close() }
}
