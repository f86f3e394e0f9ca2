/**
 * Usage survives a crash: a real engine process with a real WebSocket terminal is killed with
 * SIGKILL mid-session; after a restart the session is closed at its last checkpoint (so at most
 * one checkpoint interval is lost), counted once, and never again on later restarts.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import Database from 'libsql'
import { afterEach, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { cliEnv, cliJson, Inbox, repoRoot, tempDir } from '../../core/test/helpers.js'

const CHECKPOINT_MS = 200

interface Running {
  readonly child: ChildProcess
  readonly ports: Record<string, number>
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>
  /** Checkpoint instants the engine logged (the meter says `usage checkpoint` at debug level). */
  readonly checkpoints: Inbox<number>
}

const children: ChildProcess[] = []
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL')
})

const start = (dataDir: string): Promise<Running> => {
  const child = spawn(
    process.execPath,
    [join(repoRoot, 'bin/hark.js'), 'start', '--data', dataDir, '--rest-port', '0', '--gateway-port', '0', '--mqtt-port', '0', '--console-port', '0',
      '--log-level', 'debug', '--usage-checkpoint-ms', String(CHECKPOINT_MS)],
    { stdio: ['ignore', 'ignore', 'pipe'], env: cliEnv() },
  )
  children.push(child)
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  )
  const checkpoints = new Inbox<number>()
  return new Promise((resolve, reject) => {
    createInterface({ input: child.stderr! }).on('line', (line) => {
      if (line.includes('"usage checkpoint"')) checkpoints.push((JSON.parse(line) as { at: number }).at)
      const m = /running on \S+ \(([^)]*)\)/.exec(line)
      if (!m) return
      const ports = Object.fromEntries(m[1]!.split(' ').map((kv) => kv.split('=')).map(([k, v]) => [k!, Number(v)]))
      resolve({ child, ports, exited, checkpoints })
    })
    void exited.then((e) => reject(new Error(`hark start exited early (${e.code ?? e.signal})`)))
  })
}

/** The one usage session row and the folded day rows, read straight from the libSQL file. */
const readUsage = (dataDir: string) => {
  const db = new Database(join(dataDir, 'hark.db'), { readonly: true })
  try {
    const sessions = db.prepare('SELECT started_at, checkpoint_at, ended_at FROM usage_sessions').all() as Array<{
      started_at: number; checkpoint_at: number; ended_at: number | null
    }>
    const days = db.prepare('SELECT day, milliseconds, sessions FROM usage_daily').all() as Array<{
      day: string; milliseconds: number; sessions: number
    }>
    // libSQL rows carry a _metadata member: keep the columns only.
    return {
      sessions: sessions.map(({ started_at, checkpoint_at, ended_at }) => ({ started_at, checkpoint_at, ended_at })),
      days: days.map(({ day, milliseconds, sessions }) => ({ day, milliseconds, sessions })),
    }
  } finally {
    db.close()
  }
}


describe('usage across a crash (real engine process)', () => {
  it('loses at most one checkpoint interval and never double counts', async () => {
    const dir = tempDir()
    try {
      const data = ['--data', dir.path]
      const { workspaceId } = await cliJson<{ workspaceId: string }>(['workspace', 'create', 'acme', ...data])
      const { apiKey } = await cliJson<{ apiKey: string }>(['apikey', 'create', '--workspace', workspaceId, ...data])
      await cliJson(['client', 'create', 'dev-1', '--workspace', workspaceId, '--room', 'lobby', ...data])
      const { token } = await cliJson<{ token: string }>(['token', 'issue', 'dev-1', '--workspace', workspaceId, ...data])

      const first = await start(dir.path)
      const ca = readFileSync(join(dir.path, 'tls-self-signed.crt'), 'utf8')
      const ws = new WebSocket(`wss://127.0.0.1:${first.ports.gateway}/v1/connect?token=${token}`, { ca })
      const session = await new Promise<{ type: string }>((resolve, reject) => {
        ws.once('message', (d) => resolve(JSON.parse(d.toString())))
        ws.once('error', reject)
      })
      expect(session.type).toBe('session')
      ws.on('error', () => {})

      // The engine says when it checkpointed an open session: wait for one past the session start.
      const startedAt = readUsage(dir.path).sessions[0]!.started_at
      const checkpointAt = await first.checkpoints.next((at) => at > startedAt, 10_000, 'a usage checkpoint')
      first.child.kill('SIGKILL')
      expect((await first.exited).signal).toBe('SIGKILL')
      // What the dead engine left: an open session with its last checkpoint, nothing folded yet.
      const left = readUsage(dir.path)
      expect(left.sessions).toHaveLength(1)
      expect(left.sessions[0]!.ended_at).toBeNull()
      expect(left.days).toEqual([])
      const lastCheckpoint = left.sessions[0]!.checkpoint_at
      expect(lastCheckpoint).toBeGreaterThanOrEqual(checkpointAt)

      const second = await start(dir.path)
      const recovered = readUsage(dir.path)
      expect(recovered.sessions[0]!.ended_at).toBe(lastCheckpoint)
      const metered = lastCheckpoint - recovered.sessions[0]!.started_at
      expect(recovered.days.reduce((n, d) => n + d.milliseconds, 0)).toBe(metered)
      expect(recovered.days.reduce((n, d) => n + d.sessions, 0)).toBe(1)

      const res = await fetch(`http://127.0.0.1:${second.ports.rest}/api/v1/usage`, { headers: { authorization: `Bearer ${apiKey}` } })
      const report = (await res.json()) as { totals: { minutes: number; sessions: number } }
      expect(report.totals).toEqual({ minutes: Math.round(metered / 600) / 100, sessions: 1 })

      // A graceful stop and another start change nothing: the session is counted exactly once.
      second.child.kill('SIGTERM')
      expect((await second.exited).code).toBe(0)
      const third = await start(dir.path)
      expect(readUsage(dir.path).days).toEqual(recovered.days)
      third.child.kill('SIGTERM')
      expect((await third.exited).code).toBe(0)
    } finally {
      dir.remove()
    }
    // Four CLI runs and three engine starts: on a loaded 2-core machine that alone can take 30 s.
  }, 60_000)
})
