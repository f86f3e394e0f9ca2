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
import type { HarkError } from '../errors.js'
import type { TerminalIdentity } from '../security/security.js'
import type { TerminalLink } from '../session.js'

export const repoRoot = fileURLToPath(new URL('../../', import.meta.url))

export const tempDir = (prefix = 'hark-test-'): { path: string; remove: () => void } => {
  const path = mkdtempSync(join(tmpdir(), prefix))
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) }
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

/** An engine on a temp data dir, every listener on port 0 (the OS picks a free port). */
export const startTestEngine = async <const X extends ReadonlyArray<Extension> = []>(
  config: EngineConfig<X> = {} as EngineConfig<X>,
  options: EngineOptions = {},
) => {
  const dir = tempDir()
  const engine: Engine = createEngine(
    {
      dataDir: dir.path,
      log: { level: 'silent' },
      rest: { port: 0 },
      storage: { changePollMs: 50 },
      ...freePorts(config.extensions ?? []),
      ...config,
    },
    options,
  )
  await engine.start()
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
    storage.transaction(() => {
      storage.clients.insert({
        workspaceId: workspace.workspaceId, clientId, name: null, kind: null, room, ephemeral: false,
        expiresAt: null, tokensNotBefore: now, createdAt: now, updatedAt: now,
      })
      storage.recordChange('client.created', workspace.workspaceId, clientId, now)
    })
  }
  return { workspaceId: workspace.workspaceId, apiKey: key.apiKey, keyId: key.keyId, addClient }
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

/** Run `hark …` as a real process (the compiled CLI, as installed). */
export const runCli = (args: string[], env: Record<string, string> = {}): Promise<CliResult> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(repoRoot, 'bin/hark.js'), ...args], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d) => (stdout += d))
    child.stderr.on('data', (d) => (stderr += d))
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, stdout, stderr }))
  })

/** Run the CLI with --json and parse its single JSON value. */
export const cliJson = async <T = unknown>(args: string[], env: Record<string, string> = {}): Promise<T> => {
  const r = await runCli([...args, '--json'], env)
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
