/**
 * A data dir opened beside a running engine, or without one: storage on its libSQL file and the
 * security services on its master key, for the CLI's operator commands and for tools such as the
 * bench's seeders and verifiers. The engine opens the same files through its layers (engine.ts).
 * With `storage.url` the database is on a libSQL server: the engine keeps its replica in the data
 * dir (`replicaFileOf`), and a data dir opened here gets a replica of its own in a temp dir, for
 * as long as it is open.
 */
import { createHash } from 'node:crypto'
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { systemClock, type ClockShape } from './clock.js'
import type { Settings } from './config.js'
import { checkMasterKey, loadMasterKey, makeMasterKey } from './security/masterKey.js'
import { makeSecurity, type SecurityShape } from './security/security.js'
import { checkPrimary, type RemoteDatabase } from './storage/replica.js'
import { openStorage, type StorageShape } from './storage/storage.js'

export interface DataDir {
  readonly storage: StorageShape
  readonly security: SecurityShape
  close(): void
}

/** Where the master key is read from (or generated into) when it is not given as a value. */
export const masterKeyFileOf = (settings: Settings): string => settings.security.masterKeyFile ?? join(settings.dataDir, 'master.key')

/** The libSQL server of these settings, or null: the database is the file in the data dir. */
export const remoteOf = (settings: Settings): RemoteDatabase | null =>
  settings.storage.url === null ? null : { url: settings.storage.url, authToken: settings.storage.authToken }

/** The engine's libSQL file: the database itself, or its replica of the server's (named after the server). */
export const databaseFileOf = (settings: Settings): string => {
  const remote = remoteOf(settings)
  if (!remote) return join(settings.dataDir, 'hark.db')
  const server = createHash('sha256').update(remote.url).digest('hex').slice(0, 12)
  return join(settings.dataDir, `replica-${server}.db`)
}

/**
 * Open `settings.dataDir` (created when missing); `close` releases the libSQL file. On a libSQL
 * server, use `openDataDirChecked` (it names a wrong address or token first).
 */
export const openDataDir = (settings: Settings, clock: ClockShape = systemClock): DataDir => {
  const remote = remoteOf(settings)
  // With a server the data dir holds at most the master key file: it is read, never made.
  if (!remote) mkdirSync(settings.dataDir, { recursive: true, mode: 0o700 })
  // Beside a running engine that holds its replica: a throwaway one for this process.
  const scratch = remote ? mkdtempSync(join(tmpdir(), 'hark-replica-')) : null
  const removeScratch = () => scratch && rmSync(scratch, { recursive: true, force: true })
  let storage: StorageShape
  try {
    storage = openStorage(scratch ? join(scratch, 'replica.db') : databaseFileOf(settings), remote)
  } catch (e) {
    removeScratch()
    throw e
  }
  try {
    const { key } = loadMasterKey({ value: settings.security.masterKey, file: masterKeyFileOf(settings), generate: remote === null })
    const masterKey = makeMasterKey(key)
    if (remote) checkMasterKey(masterKey, storage.signingSecrets.sample())
    const security = makeSecurity(storage, masterKey, clock, { secretGraceSeconds: settings.security.secretGraceSeconds })
    return {
      storage,
      security,
      close: () => {
        try {
          storage.close()
        } finally {
          removeScratch()
        }
      },
    }
  } catch (e) {
    storage.close()
    removeScratch()
    throw e
  }
}

/** openDataDir, after asking the libSQL server (if any) whether it answers and takes the token. */
export const openDataDirChecked = async (settings: Settings, clock: ClockShape = systemClock): Promise<DataDir> => {
  const remote = remoteOf(settings)
  if (remote) await checkPrimary(remote)
  return openDataDir(settings, clock)
}
