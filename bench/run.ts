/**
 * `npm run bench -- [scenario...] [--quick] [--json FILE] [--list] [--sweep] …`: the bench
 * runner as a program (node dist/bench/run.js). `hark bench` runs the same thing.
 */
import { Command } from 'commander'
import { addBenchOptions, toBenchOptions } from './options.js'
import { runBench } from './runner.js'

const program = addBenchOptions(new Command('bench').description('Hark vs its peers, side by side'))
program.action(async (scenarios: string[], opts: Parameters<typeof toBenchOptions>[1]) => {
  process.exitCode = await runBench(toBenchOptions(scenarios, opts))
})
await program.parseAsync(process.argv)
