/**
 * `npm run release`: release/hark-<version>-linux-x64.tar.gz, an engine that runs on a Linux
 * machine with nothing but glibc ≥ 2.36 and /bin/sh. npm does the packaging: `npm pack` of the
 * built checkout unpacked into the archive's tree, then `npm ci --omit=dev` there from the
 * checkout's lockfile (the engine's production dependencies, native ones with their prebuilt
 * binaries, linux-x64's only). Added around it: this machine's Node runtime with the C++ runtime libraries it and
 * the native dependencies link, a `bin/hark` shell launcher, a systemd unit (verified with
 * `systemd-analyze verify` when the tool is here) and a sample config.
 *
 *   hark-<version>-linux-x64/
 *     bin/hark                    launcher: the bundled node on lib/node_modules/hark/bin/hark.js
 *     node/bin/node, node/VERSION the runtime (process.execPath of the build) and its version
 *     node/lib/                   libstdc++.so.6 and libgcc_s.so.1 as node links them
 *     lib/node_modules/hark/      the package (dist, bin, spec, package.json) and its node_modules
 *     hark.service, hark.json     systemd unit and sample settings
 */
import { execFile } from 'node:child_process'
import { chmodSync, copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'

const run = promisify(execFile)
const BIG = { maxBuffer: 64 * 1024 * 1024 }

/** The release tree (also the archive's top folder) and what it is named after. */
export interface Staged {
  readonly name: string
  readonly version: string
  /** `<workDir>/<name>`: the archive's top folder. */
  readonly prefix: string
  /** `<prefix>/lib/node_modules/hark`: the package with its production dependencies. */
  readonly pkg: string
  readonly workDir: string
}

/**
 * `npm pack` the checkout at `root` (built beforehand), unpack it into the release tree and install
 * its production dependencies there with `npm ci --omit=dev`, from the checkout's lockfile: the
 * versions (and overrides) the tests ran with, not a fresh resolution. No install script runs:
 * package.json's allowScripts denies onnxruntime-node's and koffi's (their prebuilt binaries are in
 * the packages) and bufferutil's and utf-8-validate's only look for the prebuilt binary they ship.
 */
export const packAndInstall = async (root: string, workDir: string): Promise<Staged> => {
  const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }
  const name = `hark-${version}-linux-x64`
  const prefix = join(workDir, name)
  const pkg = join(prefix, 'lib', 'node_modules', 'hark')
  rmSync(prefix, { recursive: true, force: true })
  mkdirSync(pkg, { recursive: true })
  const packed = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', workDir], { cwd: root, ...BIG })
  const [{ filename }] = JSON.parse(packed.stdout) as [{ filename: string }]
  await run('tar', ['--extract', '--gzip', '--file', join(workDir, filename), '--strip-components=1', '-C', pkg])
  rmSync(join(workDir, filename))
  copyFileSync(join(root, 'package-lock.json'), join(pkg, 'package-lock.json'))
  // From npm's cache when it has the packages: a minute on a busy machine, not seconds.
  await run('npm', ['ci', '--omit=dev', '--ignore-scripts', '--prefer-offline', '--no-audit', '--no-fund'], { cwd: pkg, ...BIG })
  return { name, version, prefix, pkg, workDir }
}

/**
 * Files of the production dependencies this engine never loads on linux-x64 glibc with this Node:
 * other platforms' prebuilt binaries (onnxruntime-node, uWebSockets.js and its unused copies in
 * dist/, libsql's musl build). The release test shows the engine still loads each native module
 * it keeps from the archive.
 */
const unused = (pkg: string): string[] => {
  const modules = join(pkg, 'node_modules')
  const onnx = join(modules, 'onnxruntime-node', 'bin', 'napi-v6')
  const uws = join(modules, 'uWebSockets.js')
  const uwsBinary = `uws_linux_x64_${process.versions.modules}.node`
  return [
    ...readdirSync(onnx).filter((os) => os !== 'linux').map((os) => join(onnx, os)),
    ...readdirSync(join(onnx, 'linux')).filter((arch) => arch !== 'x64').map((arch) => join(onnx, 'linux', arch)),
    ...readdirSync(join(uws, 'binaries')).filter((f) => f !== uwsBinary).map((f) => join(uws, 'binaries', f)),
    ...readdirSync(join(uws, 'dist')).filter((f) => f.endsWith('.node')).map((f) => join(uws, 'dist', f)),
    join(modules, '@libsql', 'linux-x64-musl'),
  ]
}

/** The launcher: resolves its own location (it may be reached through a symlink) and execs node. */
export const LAUNCHER = `#!/bin/sh
# Hark from a release archive: the Node runtime and C++ libraries it carries, on the engine it carries.
# Needs /bin/sh, readlink and glibc >= 2.36; nothing else from the machine.
self=$(readlink -f -- "$0") || exit 1
root=\${self%/bin/*}
LD_LIBRARY_PATH="$root/node/lib\${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export LD_LIBRARY_PATH
exec "$root/node/bin/node" "$root/lib/node_modules/hark/bin/hark.js" "$@"
`

/** Where the archive is expected on a server: the unit and the README say /opt/hark. */
export const INSTALL_DIR = '/opt/hark'

export const unit = (installDir = INSTALL_DIR) => `# Hark as a systemd service (README, "Install from a release archive").
[Unit]
Description=Hark voice access engine
After=network-online.target
Wants=network-online.target

[Service]
Type=simple
User=hark
Group=hark
ExecStart=${installDir}/bin/hark start --config /etc/hark/hark.json
# /var/lib/hark, owned by hark: the libSQL file, the master key, generated TLS material.
StateDirectory=hark
StateDirectoryMode=0700
WorkingDirectory=/var/lib/hark
Environment=HARK_DATA_DIR=/var/lib/hark
# hark stops gracefully on SIGTERM within its 4.5 s budget and exits 0.
KillSignal=SIGTERM
TimeoutStopSec=15
Restart=on-failure
RestartSec=2
# One descriptor per terminal: many idle devices need many (README, "Ports").
LimitNOFILE=1048576
UMask=0077
NoNewPrivileges=yes
CapabilityBoundingSet=
ProtectSystem=strict
ProtectHome=yes
PrivateTmp=yes
PrivateDevices=yes
ProtectKernelTunables=yes
ProtectKernelModules=yes
ProtectKernelLogs=yes
ProtectControlGroups=yes
ProtectClock=yes
ProtectHostname=yes
ProtectProc=invisible
RestrictNamespaces=yes
RestrictRealtime=yes
RestrictSUIDSGID=yes
RestrictAddressFamilies=AF_INET AF_INET6 AF_UNIX AF_NETLINK
LockPersonality=yes
RemoveIPC=yes
PrivateMounts=yes
SystemCallArchitectures=native
# Not MemoryDenyWriteExecute: V8's JIT writes code it then runs. Not ProcSubset=pid: Node reads
# /proc/cpuinfo and /proc/meminfo. No SystemCallFilter yet: not run under systemd where it was built.

[Install]
WantedBy=multi-user.target
`

/** Sample settings (`--config`), nested as `hark settings` lists them; flags and HARK_* override them. */
export const SAMPLE_CONFIG = {
  host: '0.0.0.0',
  dataDir: '/var/lib/hark',
  log: { level: 'info', format: 'json' },
  rest: { port: 8080 },
  gateway: { port: 8443 },
  mqtt: { port: 2883 },
  console: { port: 8090 },
  tls: { certFile: null, keyFile: null },
}

/**
 * `systemd-analyze verify` of a hark.service (written into `dir`): true when it passed, false when
 * the tool is not on this machine. verify exits 0 on an unknown key or a value it ignores and only
 * says so: anything it says is an error. Its ExecStart must exist (assemble points it into the tree).
 */
export const verifyUnit = async (text: string, dir: string): Promise<boolean> => {
  const tool = ['/usr/bin/systemd-analyze', '/bin/systemd-analyze'].find((p) => existsSync(p))
  if (tool === undefined) return false
  mkdirSync(dir, { recursive: true })
  writeFileSync(join(dir, 'hark.service'), text)
  const { stdout, stderr } = await run(tool, ['verify', join(dir, 'hark.service')], BIG).finally(() =>
    rmSync(dir, { recursive: true, force: true }))
  const said = `${stdout}${stderr}`.trim()
  if (said !== '') throw new Error(`systemd-analyze verify hark.service:\n${said}`)
  return true
}

/** Where the dynamic linker finds `lib` for `binary` (ldd's "lib => path"). */
const linkedLibrary = async (binary: string, lib: string): Promise<string> => {
  const { stdout } = await run('ldd', [binary])
  const path = new RegExp(`^\\s*${lib.replaceAll('.', '\\.').replaceAll('+', '\\+')} => (\\S+)`, 'm').exec(stdout)?.[1]
  if (path === undefined) throw new Error(`${binary} does not link ${lib}`)
  return realpathSync(path)
}

export interface Release {
  readonly archive: string
  /** hark.service passed `systemd-analyze verify` (false: the tool is not on this machine). */
  readonly unitVerified: boolean
}

/**
 * Turn the install into the release tree and write `<outDir>/<name>.tar.gz`, gzip'd at `gzipLevel`
 * (9, the smallest, for a release; a test that only unpacks it again takes 1, a few times faster).
 */
export const assemble = async (staged: Staged, outDir: string, gzipLevel = 9): Promise<Release> => {
  const { prefix } = staged
  // package.json's engines, and the uWebSockets.js binary kept (Node 20's ABI).
  if (!process.version.startsWith('v20.')) throw new Error(`the release carries Node 20; this is ${process.version}`)
  for (const path of unused(staged.pkg)) rmSync(path, { recursive: true, force: true })
  mkdirSync(join(prefix, 'node', 'bin'), { recursive: true })
  mkdirSync(join(prefix, 'node', 'lib'), { recursive: true })
  copyFileSync(process.execPath, join(prefix, 'node', 'bin', 'node'))
  chmodSync(join(prefix, 'node', 'bin', 'node'), 0o755)
  writeFileSync(join(prefix, 'node', 'VERSION'), `${process.version}\n`)
  for (const license of ['/usr/share/doc/nodejs/LICENSE', join(process.execPath, '../../LICENSE')]) {
    if (existsSync(license)) {
      copyFileSync(license, join(prefix, 'node', 'LICENSE'))
      break
    }
  }
  // Not glibc: the C++ runtime node and the native addons (libsql, onnxruntime, koffi) link.
  for (const lib of ['libstdc++.so.6', 'libgcc_s.so.1']) {
    copyFileSync(await linkedLibrary(process.execPath, lib), join(prefix, 'node', 'lib', lib))
  }
  mkdirSync(join(prefix, 'bin'), { recursive: true })
  writeFileSync(join(prefix, 'bin', 'hark'), LAUNCHER, { mode: 0o755 })
  writeFileSync(join(prefix, 'hark.service'), unit())
  writeFileSync(join(prefix, 'hark.json'), `${JSON.stringify(SAMPLE_CONFIG, null, 2)}\n`)
  const unitVerified = await verifyUnit(unit(prefix), join(staged.workDir, 'unit-check'))
  mkdirSync(outDir, { recursive: true })
  const archive = join(outDir, `${staged.name}.tar.gz`)
  await run('tar', ['--create', `--use-compress-program=gzip -${gzipLevel}`, '--file', archive, '--owner=0', '--group=0', '--numeric-owner', '--sort=name', '-C', staged.workDir, staged.name], BIG)
  return { archive, unitVerified }
}

const isMain = process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]
if (isMain) {
  // dist/cli/release.js → the repository root is two folders up; `npm run release` built it.
  const root = fileURLToPath(new URL('../../', import.meta.url))
  const workDir = join(root, 'release', 'stage')
  const staged = await packAndInstall(root, workDir)
  const { archive, unitVerified } = await assemble(staged, join(root, 'release'))
  rmSync(workDir, { recursive: true, force: true })
  process.stdout.write(
    unitVerified ? 'hark.service: systemd-analyze verify passed\n' : 'hark.service: not verified (no systemd-analyze on this machine)\n',
  )
  process.stdout.write(`wrote ${archive} (${(statSync(archive).size / 1e6).toFixed(1)} MB, Node ${process.version})\n`)
}
