/**
 * Spawn a server that dies with the process that started it, however that process ends (a test
 * worker killed by vitest, a kill -9, an OOM kill): util-linux `setpriv --pdeathsig KILL` sets the
 * Linux parent-death signal (PR_SET_PDEATHSIG) and execs the server, so the kernel sends it
 * SIGKILL when its parent goes — no watchdog process, no polling, and the PID is the server's own.
 * `process.on('exit')` hooks cannot do this: a SIGKILLed parent runs none.
 *
 * The signal follows the thread that spawned it: spawn from the main thread (node's
 * child_process does), or the server goes when that thread ends.
 */
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process'
import { existsSync } from 'node:fs'

const SETPRIV = ['/usr/bin/setpriv', '/bin/setpriv']

/** util-linux's setpriv (part of every Debian system); throws how to get it when absent. */
export const setprivBinary = (): string => {
  const found = SETPRIV.find((p) => existsSync(p))
  if (!found) throw new Error('setpriv is not installed; install it with: sudo apt-get install -y util-linux')
  return found
}

/** `spawn(file, args, options)`, the child killed by the kernel when this process dies. */
export const spawnTied = (file: string, args: readonly string[], options: SpawnOptions): ChildProcess =>
  spawn(setprivBinary(), ['--pdeathsig', 'KILL', '--', file, ...args], options)
