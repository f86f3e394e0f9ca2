/**
 * Peer: mosquitto from the distribution. Installs it with apt when missing (root only; otherwise
 * says which command to run), then starts it in the foreground on a free 127.0.0.1 port with a
 * generated config (no persistence, anonymous, listener on loopback only), pinned to the server
 * core and stopped by PID like every bench process. On a machine with systemd, apt may also
 * start the distribution's own service; the bench neither uses nor stops that one.
 */
import { execFileSync } from 'node:child_process'
import { existsSync, writeFileSync } from 'node:fs'
import { connect } from 'node:net'
import { join } from 'node:path'
import type { MeasureContext, SetupContext } from '../scenario.js'
import { delay, within } from '../harness/clock.js'
import { serverCpus } from '../harness/cores.js'
import { freePort } from '../harness/ports.js'
import type { ManagedProcess } from '../harness/processes.js'

const CANDIDATES = ['/usr/sbin/mosquitto', '/usr/bin/mosquitto', '/usr/local/sbin/mosquitto']

const findMosquitto = (): string | null => CANDIDATES.find((p) => existsSync(p)) ?? null

/** The mosquitto binary, installed from apt first when missing. */
export const ensureMosquitto = async (ctx: Pick<SetupContext, 'procs' | 'logFile' | 'phase'>): Promise<string> => {
  const found = findMosquitto()
  if (found) return found
  if (process.getuid?.() !== 0) throw new Error('mosquitto is not installed: run `sudo apt-get install -y mosquitto`')
  const log = ctx.logFile('apt-mosquitto')
  const apt = async (args: string[]) => {
    const p = ctx.procs.spawn({ name: 'apt-get', command: 'apt-get', args, logFile: log, env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } })
    const exit = await within(p.exited, 600_000)
    if (!exit) await p.stop()
    return exit?.code === 0
  }
  ctx.phase('installing mosquitto (apt-get install -y mosquitto)')
  // A fresh machine may have no package lists yet: update once, then try again.
  if (!(await apt(['install', '-y', '-q', 'mosquitto']))) {
    await apt(['update', '-q'])
    if (!(await apt(['install', '-y', '-q', 'mosquitto']))) throw new Error(`apt-get install mosquitto failed; see ${log}`)
  }
  const installed = findMosquitto()
  if (!installed) throw new Error(`mosquitto installed but not found in ${CANDIDATES.join(', ')}`)
  return installed
}

/** "mosquitto 2.0.11" (from `mosquitto -h`, which prints the version and exits 3). */
export const mosquittoVersion = (binary: string): string => {
  let text = ''
  try {
    text = execFileSync(binary, ['-h'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })
  } catch (e) {
    text = String((e as { stdout?: string }).stdout ?? '')
  }
  const m = /mosquitto version (\S+)/.exec(text)
  return m ? `mosquitto ${m[1]}` : 'mosquitto'
}

const waitForPort = async (port: number, proc: ManagedProcess, timeoutMs: number) => {
  const deadline = Date.now() + timeoutMs
  for (let i = 0; i < Math.ceil(timeoutMs / 50) && Date.now() < deadline; i++) {
    if (proc.hasExited) throw new Error('mosquitto exited during start')
    const ok = await new Promise<boolean>((resolve) => {
      const s = connect(port, '127.0.0.1')
      s.once('connect', () => {
        s.destroy()
        resolve(true)
      })
      s.once('error', () => resolve(false))
    })
    if (ok) return
    await delay(50)
  }
  throw new Error(`mosquitto did not listen on ${port} within ${timeoutMs} ms`)
}

export interface StartedMosquitto {
  readonly proc: ManagedProcess
  readonly pid: number
  readonly port: number
}

/** Start mosquitto on a free loopback port with a config written into the scenario's dir. */
export const startMosquitto = async (
  ctx: Pick<MeasureContext, 'procs' | 'cores' | 'logFile' | 'phase' | 'dir' | 'round'>,
  binary: string,
): Promise<StartedMosquitto> => {
  const port = await freePort()
  const conf = join(ctx.dir, `mosquitto-${port}.conf`)
  writeFileSync(
    conf,
    [
      `listener ${port} 127.0.0.1`,
      'allow_anonymous true',
      'persistence false',
      'log_dest stderr',
      'log_type error',
      'log_type warning',
      'set_tcp_nodelay true',
      '',
    ].join('\n'),
  )
  ctx.phase('starting mosquitto')
  const proc = ctx.procs.spawn({
    name: 'mosquitto',
    command: binary,
    args: ['-c', conf],
    cpus: serverCpus(ctx.cores),
    logFile: ctx.logFile('mosquitto'),
  })
  await waitForPort(port, proc, 10_000)
  return { proc, pid: proc.pid, port }
}
