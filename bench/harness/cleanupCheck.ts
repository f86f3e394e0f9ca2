/**
 * A stand-in runner for proving cleanup: it installs the runner's signal handling, starts one
 * dummy child through a ProcessGroup (its output on this program's stdout), prints
 * "child <pid>" and waits, bounded, to be signalled. The tests signal it and wait for the stdout
 * pipe to close, which happens only once the child has exited too.
 * Usage: node dist/bench/harness/cleanupCheck.js
 */
import { ProcessGroup, installSignalCleanup } from './processes.js'

installSignalCleanup()
const group = new ProcessGroup()
const child = group.spawn({
  name: 'dummy',
  command: process.execPath,
  // The dummy ignores nothing and lives at most 60 s on its own.
  args: ['-e', 'setTimeout(() => {}, 60000)'],
  inheritOutput: true,
})
process.stdout.write(`child ${child.pid}\n`)
// Bounded wait for the signal; without one, stop the child and leave.
setTimeout(() => void group.stopAll().then(() => process.exit(4)), 60_000)
