/**
 * `npm start` as an operator runs it (issue 33, item 3): npm, its shell and the engine as real
 * processes in this checkout, on free ports and a temp data dir. A SIGTERM or SIGINT to npm's PID
 * stops the engine gracefully and npm exits 0 (README); afterwards no engine process is left and
 * every port it held is free. The same under `npx -c`, the layout `npx hark start` has (npm, a
 * `sh -c` that does not exec, the engine): the shell dies of the signal, npx with it (143), and
 * the engine, its parent gone, stops on its own. Before the fix the engine ran on with parent PID 1.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { createInterface } from 'node:readline'
import { afterEach, describe, expect, it } from 'vitest'
import { cliEnv, Inbox, repoRoot, tempDir } from '../core/test/helpers.js'

/** Processes to stop by PID should a test fail with them still running. */
const started: number[] = []
const dirs: Array<{ remove: () => void }> = []
afterEach(() => {
  for (const pid of started.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL')
    } catch {
      // gone, as it should be
    }
  }
  for (const dir of dirs.splice(0)) dir.remove()
})

/** How long the engine may take to let go of npm's output after the signal: its stop budget (4.5 s) and then some. */
const GONE_WITHIN_MS = 15_000

/** The process runs: it exists and is not a zombie (an orphan's exit is reaped by PID 1, in its own time). */
const running = (pid: number): boolean => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z'
  } catch {
    return false
  }
}

/** PIDs of processes whose command line names `needle` (the test's own data dir). */
const processesNaming = (needle: string): number[] =>
  readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(needle)
      } catch {
        return false
      }
    })
    .map(Number)

const portIsFree = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const server = createServer()
    server.once('error', () => resolve(false))
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)))
  })

/** Run `argv` in the checkout with the engine's flags appended; its output lines, exit and the engine's PID and ports. */
const launch = async (argv: readonly string[], engineArgs: (flags: string) => readonly string[]) => {
  const data = tempDir('hark-npm-start-')
  dirs.push(data)
  const flags = `--data ${data.path} --rest-port 0 --gateway-port 0 --mqtt-port 0 --console-port 0 --log-format json`
  const [file, ...args] = [...argv, ...engineArgs(flags)] as [string, ...string[]]
  const child: ChildProcess = spawn(file, args, { cwd: repoRoot, env: cliEnv(), stdio: ['ignore', 'pipe', 'pipe'] })
  started.push(child.pid!)
  const lines = new Inbox<string>()
  for (const stream of [child.stdout!, child.stderr!]) createInterface({ input: stream }).on('line', (l) => lines.push(l))
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })))
  // 'close' comes once every process holding npm's output pipes — the engine among them — has exited.
  const released = new Promise<void>((resolve) => child.once('close', () => resolve()))
  const running = await lines.next((l) => l.startsWith('hark: running on '), 60_000, `hark running under ${argv.join(' ')}`)
  const ports = [...running.matchAll(/(\w+)=(\d+)/g)].map((m) => Number(m[2]))
  const logged = await lines.next((l) => l.startsWith('{') && l.includes('"pid":'), 1000, 'a JSON log line of the engine')
  const enginePid = (JSON.parse(logged) as { pid: number }).pid
  started.push(enginePid)
  return { child, lines, exit, released, ports, enginePid, dataDir: data.path }
}

/** After the signal: the engine stopped gracefully, no process of it is left and its ports are free. */
const expectStoppedCleanly = async (run: Awaited<ReturnType<typeof launch>>, said: string) => {
  let timer: NodeJS.Timeout | undefined
  await Promise.race([
    run.released,
    new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`the engine (PID ${run.enginePid}) still runs ${GONE_WITHIN_MS} ms after npm exited`)), GONE_WITHIN_MS)
    }),
  ]).finally(() => clearTimeout(timer))
  expect(running(run.enginePid)).toBe(false)
  expect(processesNaming(run.dataDir)).toEqual([])
  expect(run.lines.items).toContain(said)
  expect(run.lines.items.some((l) => /^hark: stopped in \d+ ms$/.test(l))).toBe(true)
  expect(run.ports).toHaveLength(4)
  for (const port of run.ports) expect([port, await portIsFree(port)]).toEqual([port, true])
}

describe('npm start', () => {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`stops the engine gracefully on ${signal} to npm: exit 0, no engine process left, its ports free`, async () => {
      const run = await launch(['npm', 'start'], (flags) => ['--', ...flags.split(' ')])
      process.kill(run.child.pid!, signal)
      expect(await run.exit).toEqual({ code: 0, signal: null })
      await expectStoppedCleanly(run, `hark: ${signal}: stopping`)
    })
  }

  it('under npx (npm, a shell that does not exec, the engine): the engine stops when its parent dies of the SIGTERM', async () => {
    const run = await launch(['npx', '-c'], (flags) => [`node bin/hark.js start ${flags}`])
    process.kill(run.child.pid!, 'SIGTERM')
    // npx re-raises the signal its shell died of: 143 in a shell. The engine stops on its own.
    expect(await run.exit).toEqual({ code: null, signal: 'SIGTERM' })
    const stopping = await run.lines.next((l) => /^hark: its parent \(PID \d+, run by npm npx\) exited: stopping$/.test(l), GONE_WITHIN_MS, 'the engine stopping')
    await expectStoppedCleanly(run, stopping)
  })
})
