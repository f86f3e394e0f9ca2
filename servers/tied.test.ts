/**
 * A server started for a test dies with the process that started it, even when that process is
 * killed with -9 (a test worker vitest kills runs no exit hook): nats-server and sqld, each
 * started by a real parent process (the compiled starters), whose kill -9 closes the server's
 * listening socket — a connection to it ends — and leaves no server process behind. (Its temp dir
 * stays: the parent that would have removed it was killed; the test removes it.)
 */
import { spawn } from 'node:child_process'
import { readFileSync, rmSync } from 'node:fs'
import { connect } from 'node:net'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { afterEach, describe, expect, it } from 'vitest'
import { repoRoot } from '../core/test/helpers.js'

/** Processes this file started and has not yet seen gone (a PID seen gone may belong to another process by now). */
const pids: number[] = []
const forget = (pid: number) => {
  const i = pids.indexOf(pid)
  if (i >= 0) pids.splice(i, 1)
}
/** The servers' temp dirs: a killed parent cannot remove them. */
const dirs: string[] = []
afterEach(() => {
  // A failed test may leave either process: stop them by PID.
  for (const pid of pids.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL')
    } catch {
      // gone
    }
  }
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

/** A node process that starts a server with `starter` (compiled) and prints its `{pid, port}`. */
const parentStarting = async (module: string, starter: string) => {
  const url = new URL(join(repoRoot, 'dist/servers', module), 'file://').href
  const parent = spawn(
    process.execPath,
    ['--input-type=module', '-e', `const s = await (await import(${JSON.stringify(url)})).${starter}(); console.log(JSON.stringify({ pid: s.pid, port: s.port, dataDir: s.dataDir })); setInterval(() => {}, 1 << 30)`],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  )
  pids.push(parent.pid!)
  const exited = new Promise<void>((resolve) => parent.once('exit', () => resolve()))
  const server = await new Promise<{ pid: number; port: number; dataDir: string }>((resolve, reject) => {
    createInterface({ input: parent.stdout! }).once('line', (line) => resolve(JSON.parse(line) as { pid: number; port: number; dataDir: string }))
    void exited.then(() => reject(new Error(`the parent exited before starting ${module}`)))
  })
  pids.push(server.pid)
  dirs.push(server.dataDir)
  return { parent, exited, server }
}

/** Running: /proc has it and it is not a zombie (a dead child its new parent has not reaped yet). */
const running = (pid: number) => {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'))
  } catch {
    return false
  }
}

/** True once `pid` is no longer running, looking every 5 ms for at most `ms` (false then). */
const goneWithin = async (pid: number, ms: number) => {
  for (const end = performance.now() + ms; performance.now() < end; ) {
    if (!running(pid)) return true
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
  return !running(pid)
}

const diesWithItsParent = async (module: string, starter: string) => {
  const { parent, exited, server } = await parentStarting(module, starter)
  expect(running(server.pid)).toBe(true)
  const socket = connect(server.port, '127.0.0.1')
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject))
  // Kept open; it ends when the server's process does (the kernel closes its sockets).
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()))
  socket.on('error', () => {})
  socket.resume()
  parent.kill('SIGKILL')
  await exited
  forget(parent.pid!)
  await closed
  // The kernel closes a process's sockets while it exits, a moment before /proc lets it go; no
  // event says when a process that is not our child is gone, so look until it is (bounded).
  expect(await goneWithin(server.pid, 5000)).toBe(true)
  forget(server.pid)
}

describe('a started server dies with its parent (kill -9)', () => {
  it('nats-server', async () => {
    await diesWithItsParent('nats.js', 'startNats')
  })

  it('sqld', async () => {
    await diesWithItsParent('sqld.js', 'startSqld')
  })
})
