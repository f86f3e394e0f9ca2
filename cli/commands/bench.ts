/**
 * `hark bench [scenario...] [--quick] [--json FILE] …`: the bench runner of `npm run bench`
 * (bench/runner.ts), loaded only when asked for, so the CLI needs no bench dependency otherwise.
 */
import { Command } from 'commander'

export const benchCommand = (program: Command) => {
  const cmd = program.command('bench').description('benchmark Hark against its peers, side by side (see bench/README.md)')
  // The bench's options are declared in bench/options.ts; importing it here would load the bench
  // (and its dev dependencies) on every `hark` call, so the options are added lazily below.
  cmd.allowUnknownOption(true).allowExcessArguments(true).helpOption(false)
  cmd.argument('[args...]')
  cmd.action(async (args: string[]) => {
    const { addBenchOptions, toBenchOptions } = await import('../../bench/options.js')
    const { runBench } = await import('../../bench/runner.js')
    const inner = addBenchOptions(new Command('hark bench').description('benchmark Hark against its peers'))
    inner.exitOverride()
    let code = 0
    inner.action(async (scenarios: string[], opts: Parameters<typeof toBenchOptions>[1]) => {
      code = await runBench(toBenchOptions(scenarios, opts))
    })
    await inner.parseAsync(args, { from: 'user' })
    process.exitCode = code
  })
}
