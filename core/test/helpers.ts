/**
 * Test helpers shared by every folder's tests: temporary data dirs, an engine on free ports,
 * a recording TerminalLink, the CLI as a real process, and waiting on events (never sleeping).
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createEngine, type Engine, type EngineConfig, type EngineOptions, type Extension } from '../index.js'
import type { ServerEvent } from '../events.js'
import { deleteClient, updateClient } from '../operations/clients.js'
import type { DefaultAgentSetting } from '../storage/roomSettings.js'
import type { HarkError } from '../errors.js'
import type { TerminalIdentity } from '../security/security.js'
import type { TerminalLink } from '../session.js'

export const repoRoot = fileURLToPath(new URL('../../', import.meta.url))

export const tempDir = (prefix = 'hark-test-'): { path: string; remove: () => void } => {
  const path = mkdtempSync(join(tmpdir(), prefix))
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) }
}

const isPlainObject = (u: unknown): u is Record<string, unknown> =>
  u !== null && typeof u === 'object' && Object.getPrototypeOf(u) === Object.prototype

/**
 * `over` laid on `base` key by key: plain objects merge at every depth, anything else (a value,
 * null, an array such as `extensions`, a class instance) replaces what was there.
 */
export const mergeConfig = <T extends object>(base: T, over: object): T => {
  const out: Record<string, unknown> = { ...(base as Record<string, unknown>) }
  for (const [key, value] of Object.entries(over)) {
    const current = out[key]
    out[key] = isPlainObject(current) && isPlainObject(value) ? mergeConfig(current, value) : value
  }
  return out as T
}

/** `{ port: 0 }` at the section of every registered extension that has a `port` setting. */
const freePorts = (extensions: ReadonlyArray<Extension>): Record<string, unknown> => {
  const tree: Record<string, unknown> = {}
  for (const section of extensions.flatMap((e) => (e.settings && 'port' in e.settings.tree ? [e.settings] : []))) {
    const keys = section.path.split('.')
    let node = tree
    for (const key of keys.slice(0, -1)) node = (node[key] ??= {}) as Record<string, unknown>
    node[keys[keys.length - 1]!] = { port: 0 }
  }
  return tree
}

/** What every test engine starts from: quiet, quick change polling, every listener on port 0. */
const testBase = (extensions: ReadonlyArray<Extension>): Record<string, unknown> => ({
  log: { level: (process.env.HARK_TEST_LOG ?? 'silent') as 'silent' },
  rest: { port: 0 },
  storage: { changePollMs: 50 },
  ...freePorts(extensions),
})

/** Listener settings that are set to a fixed port: `port` and `…Port` leaves other than 0 or null. */
const fixedPorts = (value: unknown, path = ''): string[] =>
  isPlainObject(value)
    ? Object.entries(value).flatMap(([k, v]) => fixedPorts(v, path ? `${path}.${k}` : k))
    : /(^|\.)port$|[a-z]Port$/.test(path) && value !== 0 && value !== null
      ? [`${path}=${String(value)}`]
      : []

/**
 * An engine (not started) on `config` merged deeply over the test base, so a test that passes
 * its own `rest` or `mqtt` settings still listens on free ports. An engine whose resolved
 * settings name a fixed port anywhere is refused: tests never bind one.
 */
export const createTestEngine = <const X extends ReadonlyArray<Extension> = []>(
  config: EngineConfig<X> & { dataDir: string },
  options: EngineOptions = {},
): Engine => {
  const engine = createEngine(mergeConfig(testBase(config.extensions ?? []), config) as EngineConfig, options)
  const fixed = fixedPorts(engine.settings)
  if (fixed.length > 0) throw new Error(`a test engine listens on free ports (port 0) only, not ${fixed.join(', ')}`)
  return engine
}

/** An engine on a temp data dir, every listener on port 0 (the OS picks a free port). */
export const startTestEngine = async <const X extends ReadonlyArray<Extension> = []>(
  config: EngineConfig<X> = {} as EngineConfig<X>,
  options: EngineOptions = {},
) => {
  const dir = tempDir()
  let engine: Engine
  try {
    engine = createTestEngine({ dataDir: dir.path, ...config } as EngineConfig & { dataDir: string }, options)
    await engine.start()
  } catch (e) {
    dir.remove()
    throw e
  }
  return {
    engine,
    dir: dir.path,
    url: (path: string) => `http://127.0.0.1:${engine.ports.rest}${path}`,
    stop: async () => {
      await engine.stop()
      dir.remove()
    },
  }
}

/** Seed a workspace, an API key, and clients through the host (no REST needed). */
export const seedWorkspace = (engine: Engine, name = 'acme') => {
  const { security, storage, clock } = engine.host
  const workspace = security.createWorkspace(name)
  const key = security.apiKeys.create(workspace.workspaceId, 'test')
  const addClient = (clientId: string, room: string | null = null) => {
    const now = clock.now()
    const client = {
      workspaceId: workspace.workspaceId, clientId, name: null, kind: null, room, ephemeral: false,
      expiresAt: null, tokensNotBefore: now, createdAt: now, updatedAt: now,
    }
    storage.transaction(() => {
      storage.clients.insert(client)
      storage.feed.record({ kind: 'client.created', workspaceId: workspace.workspaceId, subject: clientId, at: now, client })
    })
  }
  const workspaceId = workspace.workspaceId
  const deps = { storage, clock }
  return {
    workspaceId,
    apiKey: key.apiKey,
    keyId: key.keyId,
    addClient,
    /** Set a client's room as a PATCH does (and `hark client` beside a running engine): a `client.updated` change. */
    moveClient: (clientId: string, room: string | null) => updateClient(deps, workspaceId, clientId, { room }),
    /** Delete a client as REST and the CLI do: a `client.deleted` change. */
    deleteClient: (clientId: string) => deleteClient(deps, workspaceId, clientId),
    /** Set (null: clear) a room's default agent, written as PUT /rooms/{room} writes it (without its checks): a `room.updated` change. */
    setDefaultAgent: (room: string, defaultAgent: DefaultAgentSetting | null) => {
      const now = clock.now()
      storage.transaction(() => {
        storage.roomSettings.put({ workspaceId, room, defaultAgent }, now)
        storage.feed.record({ kind: 'room.updated', workspaceId, subject: room, at: now, defaultAgent })
      })
    },
  }
}

/** A terminal of `clientId` connected through the host with a fresh token, its `session` event received. */
export const openTerminal = async (engine: Engine, workspaceId: string, clientId: string) => {
  const { token } = await engine.host.security.tokens.issue(workspaceId, clientId, null)
  const link = new RecordingLink()
  const session = engine.host.terminals.open(await engine.host.security.authenticateTerminal({ token }), link)
  await link.event('session')
  return { link, session }
}

/** Run every clean-up step in order, even after one fails (a server left running otherwise); then throw the first failure. */
export const runAll = async (steps: ReadonlyArray<() => unknown>): Promise<void> => {
  const failures: unknown[] = []
  for (const step of steps) {
    try {
      await step()
    } catch (e) {
      failures.push(e)
    }
  }
  if (failures.length > 0) throw failures[0]
}

/** Resolve when `predicate` holds for an item pushed later (or already there). */
export class Inbox<T> {
  readonly items: T[] = []
  private waiters: Array<{ predicate: (t: T) => boolean; resolve: (t: T) => void }> = []

  push(item: T): void {
    this.items.push(item)
    this.waiters = this.waiters.filter((w) => {
      if (!w.predicate(item)) return true
      w.resolve(item)
      return false
    })
  }

  next(predicate: (t: T) => boolean = () => true, timeoutMs = 5000, what = 'an item'): Promise<T> {
    const found = this.items.find(predicate)
    if (found !== undefined) return Promise.resolve(found)
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), timeoutMs)
      this.waiters.push({
        predicate,
        resolve: (t) => {
          clearTimeout(timer)
          resolve(t)
        },
      })
    })
  }
}

/** The next event of `type` (matching `predicate`) in an inbox of server events. */
export const nextEvent = <T extends ServerEvent['type']>(
  events: Inbox<ServerEvent>,
  type: T,
  predicate: (e: Extract<ServerEvent, { type: T }>) => boolean = () => true,
  { timeoutMs = 5000, at = '' }: { timeoutMs?: number; at?: string } = {},
) =>
  events.next(
    (e) => e.type === type && predicate(e as Extract<ServerEvent, { type: T }>),
    timeoutMs,
    `event ${type}${at ? ` at ${at}` : ''}`,
  ) as Promise<Extract<ServerEvent, { type: T }>>

/** A TerminalLink that records what the hub sends; for core tests without a transport. */
export class RecordingLink implements TerminalLink {
  readonly events = new Inbox<ServerEvent>()
  readonly frames = new Inbox<Uint8Array>()
  closedWith: HarkError | null = null
  readonly closed: Promise<HarkError>
  private resolveClosed!: (e: HarkError) => void

  constructor(readonly transport = 'test') {
    this.closed = new Promise((r) => (this.resolveClosed = r))
  }
  deliverAudio(frame: Uint8Array): void {
    this.frames.push(frame)
  }
  sendEvent(event: ServerEvent): void {
    this.events.push(event)
  }
  close(reason: HarkError): void {
    this.closedWith = reason
    this.resolveClosed(reason)
  }
  event<T extends ServerEvent['type']>(type: T, predicate?: (e: Extract<ServerEvent, { type: T }>) => boolean) {
    return nextEvent(this.events, type, predicate)
  }
}

export interface CliResult {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

/**
 * The environment of a `hark` child process: this one's without any HARK_* variable (a setting
 * such as HARK_MQTT_TLS_PORT in the developer's shell must not reach a test), plus `env`.
 */
export const cliEnv = (env: Record<string, string> = {}): NodeJS.ProcessEnv => ({
  ...Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('HARK_'))),
  ...env,
})

/** Run `hark …` as a real process (the compiled CLI, as installed); `input` is written to its stdin. */
export const runCli = (args: string[], env: Record<string, string> = {}, input?: string): Promise<CliResult> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(repoRoot, 'bin/hark.js'), ...args], {
      env: cliEnv(env),
      stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    })
    if (input !== undefined) child.stdin!.end(input)
    let stdout = ''
    let stderr = ''
    child.stdout!.on('data', (d) => (stdout += d))
    child.stderr!.on('data', (d) => (stderr += d))
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, stdout, stderr }))
  })

/** Run the CLI with --json and parse its single JSON value. */
export const cliJson = async <T = unknown>(args: string[], env: Record<string, string> = {}, input?: string): Promise<T> => {
  const r = await runCli([...args, '--json'], env, input)
  if (r.code !== 0) throw new Error(`hark ${args.join(' ')} failed (${r.code}): ${r.stderr}`)
  return JSON.parse(r.stdout) as T
}

/** Build an uplink frame: V|level byte then the given payload bytes. */
export const uplink = (payload: Uint8Array | number[], levelByte = 0x80 | 20): Uint8Array => {
  const bytes = payload instanceof Uint8Array ? payload : Uint8Array.from(payload)
  const frame = new Uint8Array(bytes.length + 1)
  frame[0] = levelByte
  frame.set(bytes, 1)
  return frame
}

/** An identity as admission would produce it, for actor tests without storage or tokens. */
export const terminalIdentity = (
  clientId: string,
  { workspaceId = 'ws_1', room = null, credential = { kind: 'token', jti: `jti_${clientId}`, expiresAt: null } }: {
    workspaceId?: string
    room?: string | null
    credential?: TerminalIdentity['credential']
  } = {},
): TerminalIdentity => ({
  workspaceId,
  clientId,
  client: {
    workspaceId, clientId, name: null, kind: null, room, ephemeral: false,
    expiresAt: null, tokensNotBefore: 0, createdAt: 0, updatedAt: 0,
  },
  credential,
})
