/** What machine a run happened on, for labelling results (no secrets, nothing from the network). */
import { execFileSync } from 'node:child_process'
import { cpus, hostname, release, totalmem, type as osType } from 'node:os'
import type { MachineInfo } from '../results.js'
import { repoRoot } from '../harness/paths.js'

export const machineInfo = (): MachineInfo => ({
  cpuModel: cpus()[0]?.model.trim() ?? 'unknown CPU',
  cores: cpus().length,
  memoryGiB: Math.round(totalmem() / 2 ** 30),
  os: `${osType()} ${release()}`,
  node: process.version,
  hostname: hostname(),
})

export const machineLine = (m: MachineInfo): string =>
  `${m.cores} × ${m.cpuModel}, ${m.memoryGiB} GiB, ${m.os}, Node ${m.node}`

/** The commit checked out, when the repo is a git work tree. */
export const gitCommit = (): string | null => {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: repoRoot, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim()
  } catch {
    return null
  }
}
