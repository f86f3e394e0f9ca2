// `node bench/processCost.mjs [--runs N] [--root DIR] [--only start|cli]`: what one `hark` process
// costs (issue 39 item 3, issue 33 item 11). Method:
// - operator commands (`hark --help`, `workspace create`, `client list`, `user list`, `settings`):
//   CPU = user+sys of the whole child (every thread), read by a tiny preload (cpuPreload below,
//   `process.cpuUsage()` in an 'exit' handler, written to a file) — it runs to its exit;
// - `hark start` (free ports, a temp data dir): CPU = utime+stime of /proc/<pid>/stat (all
//   threads) when it prints its "running on" line, RSS = VmRSS of /proc/<pid>/status then, and
//   again 3 s later (what an idle engine settles at), then SIGTERM;
// - modules: one more run of each with cli/test/importTrace.mjs preloaded (every ES module URL a
//   resolve hook saw + require.cache), counted; traced runs are slow, so they are not timed.
// Each timed figure is run --runs times (default 5); min and median are printed, one JSON line per
// figure with --json. `--root DIR` measures another checkout's build (a base worktree).
import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { createInterface } from 'node:readline'
import { parseArgs } from 'node:util'

const { values: opt } = parseArgs({
  options: { runs: { type: 'string', default: '5' }, root: { type: 'string' }, only: { type: 'string' }, json: { type: 'boolean', default: false } },
})
const root = resolve(opt.root ?? new URL('..', import.meta.url).pathname)
const bin = join(root, 'bin/hark.js')
const runs = Number(opt.runs)
const tmp = mkdtempSync(join(tmpdir(), 'hark-cost-'))
const cpuPreload = join(tmp, 'cpu.mjs')
writeFileSync(
  cpuPreload,
  "import { writeFileSync } from 'node:fs'\nprocess.on('exit', () => { const u = process.cpuUsage(); writeFileSync(process.env.CPU_FILE, String((u.user + u.system) / 1000)) })\n",
)
const trace = new URL('../cli/test/importTrace.mjs', import.meta.url).href
const TICK_MS = 10 // USER_HZ = 100 on Linux

const run = (args, env = {}) =>
  new Promise((res, rej) => {
    const child = spawn(process.execPath, [bin, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
    let err = ''
    let out = ''
    child.stdout.on('data', (d) => (out += d))
    child.stderr.on('data', (d) => (err += d))
    child.on('exit', (code) => (code === 0 ? res(out) : rej(new Error(`hark ${args.join(' ')}: exit ${code}: ${err}`))))
  })

const data = join(tmp, 'data')
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const report = (name, unit, xs) => {
  const line = { name, unit, min: Math.min(...xs), median: median(xs), runs: xs.length }
  console.log(opt.json ? JSON.stringify(line) : `${name.padEnd(34)} ${unit.padEnd(7)} min ${String(line.min).padStart(6)}  median ${String(line.median).padStart(6)}  (${xs.join(' ')})`)
}

const modules = async (args, env = {}) => {
  const file = join(tmp, 'trace.txt')
  await run(args, { NODE_OPTIONS: `--import=${trace}`, IMPORT_TRACE_FILE: file, ...env })
  return readFileSync(file, 'utf8').trim().split('\n').length
}

const startArgs = (dir) => ['start', '--data', dir, '--rest-port', '0', '--gateway-port', '0', '--mqtt-port', '0', '--console-port', '0', '--log-level', 'warn']
const procCpuMs = (pid) => {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return (Number(f[11]) + Number(f[12])) * TICK_MS
}
const rssMb = (pid) => Math.round(Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024)

/** One `hark start`: CPU and RSS when it says it runs, RSS 3 s later; stopped with SIGTERM. */
const startOnce = async (env = {}) => {
  const dir = mkdtempSync(join(tmp, 'start-'))
  const spawned = performance.now()
  const child = spawn(process.execPath, [bin, ...startArgs(dir)], { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] })
  const exited = new Promise((r) => child.on('exit', r))
  let err = ''
  await new Promise((res, rej) => {
    createInterface({ input: child.stderr }).on('line', (l) => {
      err += l + '\n'
      if (/running on /.test(l)) res()
    })
    exited.then((c) => rej(new Error(`hark start exited ${c}: ${err}`)))
  })
  const out = { wallMs: Math.round(performance.now() - spawned), cpuMs: procCpuMs(child.pid), rssMb: rssMb(child.pid) }
  await new Promise((r) => setTimeout(r, 3000))
  out.rss3sMb = rssMb(child.pid)
  child.kill('SIGTERM')
  await exited
  rmSync(dir, { recursive: true, force: true })
  return out
}

console.log(`# ${root} — ${runs} runs each; load: ${readFileSync('/proc/loadavg', 'utf8').trim()}`)
try {
  const { workspaceId } = JSON.parse(await run(['workspace', 'create', 'acme', '--data', data, '--json']))
  const commands = [
    ['--help'],
    ['workspace', 'create', 'w', '--data', data, '--json'],
    ['client', 'list', '--workspace', workspaceId, '--data', data, '--json'],
    ['user', 'list', '--data', data, '--json'],
    ['settings', '--data', data, '--json'],
  ]
  if (opt.only !== 'start') {
    for (const args of commands) {
      const name = args.filter((a) => !a.startsWith('--') && a !== data && a !== workspaceId && a !== 'w').join(' ') || args[0]
      const cpu = []
      for (let i = 0; i < runs; i++) {
        const file = join(tmp, 'cpu.txt')
        await run(args, { NODE_OPTIONS: `--import=${cpuPreload}`, CPU_FILE: file })
        cpu.push(Math.round(Number(readFileSync(file, 'utf8'))))
      }
      report(`hark ${name}: CPU`, 'ms', cpu)
      report(`hark ${name}: modules`, 'count', [await modules(args)])
    }
  }
  if (opt.only !== 'cli') {
    const starts = []
    for (let i = 0; i < runs; i++) starts.push(await startOnce())
    report('hark start: CPU to running', 'ms', starts.map((s) => s.cpuMs))
    report('hark start: wall to running', 'ms', starts.map((s) => s.wallMs))
    report('hark start: RSS at running', 'MB', starts.map((s) => s.rssMb))
    report('hark start: RSS 3 s later', 'MB', starts.map((s) => s.rss3sMb))
    const file = join(tmp, 'trace-start.txt')
    await startOnce({ NODE_OPTIONS: `--import=${trace}`, IMPORT_TRACE_FILE: file })
    report('hark start: modules (to its stop)', 'count', [readFileSync(file, 'utf8').trim().split('\n').length])
  }
} finally {
  rmSync(tmp, { recursive: true, force: true })
}
