import { existsSync } from 'node:fs'
import { afterEach, describe, expect, it } from 'vitest'
import { listeningPorts, startSqld, type Sqld } from './sqld.js'

const started: Sqld[] = []
afterEach(async () => {
  await Promise.all(started.splice(0).map((s) => s.stop()))
})
const start = async (auth = false) => {
  const s = await startSqld({ auth })
  started.push(s)
  return s
}

/** One statement over sqld's HTTP API (Hrana v2 pipeline). */
const query = (s: Sqld, sql: string, token: string | null = s.authToken) =>
  fetch(`${s.url}/v2/pipeline`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify({ requests: [{ type: 'execute', stmt: { sql } }, { type: 'close' }] }),
  })

const alive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

describe('startSqld', () => {
  it('runs sqld on a free loopback port with its data in a temp dir, and stops it by PID', async () => {
    const s = await startSqld()
    expect(s.url).toBe(`http://127.0.0.1:${s.port}`)
    expect(listeningPorts(s.pid)).toEqual([s.port])
    expect((await query(s, 'CREATE TABLE t (a)')).status).toBe(200)
    expect(existsSync(s.dataDir)).toBe(true)
    await s.stop()
    expect(alive(s.pid)).toBe(false)
    expect(existsSync(s.dataDir)).toBe(false)
    await expect(fetch(`${s.url}/health`)).rejects.toThrow()
  })

  it('restarts on the same port with the same data after a kill', async () => {
    const s = await start()
    const body = (r: Response) => r.json() as Promise<{ results: Array<{ response?: { result?: { rows: unknown[][] } } }> }>
    expect((await query(s, 'CREATE TABLE t (a); ')).status).toBe(200)
    expect((await query(s, "INSERT INTO t VALUES ('kept')")).status).toBe(200)
    const first = s.pid
    await s.kill()
    expect(alive(first)).toBe(false)
    await expect(fetch(`${s.url}/health`)).rejects.toThrow()
    await s.restart()
    expect(s.pid).not.toBe(first)
    const rows = (await body(await query(s, 'SELECT a FROM t'))).results[0]?.response?.result?.rows
    expect(rows).toEqual([[{ type: 'text', value: 'kept' }]])
  })

  it('with auth, refuses a request without its token and serves one with it', async () => {
    const s = await start(true)
    expect(s.authToken).toMatch(/^eyJ/)
    expect((await query(s, 'SELECT 1', null)).status).toBe(401)
    expect((await query(s, 'SELECT 1', 'not.a.token')).status).toBe(401)
    expect((await query(s, 'SELECT 1')).status).toBe(200)
  })

  it('refuses to restart while sqld is still running', async () => {
    const s = await start()
    await expect(s.restart()).rejects.toThrow(/still running/)
  })
})
