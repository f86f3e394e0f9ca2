// `node bench/startup.mjs [bin/hark.js]`: one `hark start` from nothing to a 200 on /healthz, then
// SIGTERM and its exit — a whole-process start-up figure to time from outside (e.g.
// `/usr/bin/time -v node bench/startup.mjs`, several runs, quote the median). Free ports
// (0 everywhere), a temp data dir removed afterwards; exits non-zero if hark does not come up.
// It prints `listening <ms>`: from spawning hark to its "running on" line (every listener bound).
import { spawn } from 'node:child_process'
import { createInterface } from 'node:readline'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
const bin = process.argv[2] ?? new URL('../bin/hark.js', import.meta.url).pathname
const data = mkdtempSync(join(tmpdir(), 'hark-startup-'))
const spawnedAt = performance.now()
const child = spawn(process.execPath, [bin, 'start', '--data', data, '--rest-port', '0', '--gateway-port', '0', '--mqtt-port', '0', '--console-port', '0', '--log-level', 'warn'], { stdio: ['ignore', 'ignore', 'pipe'] })
const exited = new Promise((r) => child.on('exit', r))
const port = await new Promise((resolve, reject) => {
  createInterface({ input: child.stderr }).on('line', (l) => { const m = /running on .*rest=(\d+)/.exec(l); if (m) resolve(Number(m[1])) })
  exited.then((c) => reject(new Error('exited ' + c)))
})
console.log(`listening ${Math.round(performance.now() - spawnedAt)}`)
const res = await fetch(`http://127.0.0.1:${port}/healthz`)
if (res.status !== 200) throw new Error('healthz ' + res.status)
child.kill('SIGTERM')
await exited
rmSync(data, { recursive: true, force: true })
