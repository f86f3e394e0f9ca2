/**
 * The bench's command-line options, declared once for both `npm run bench -- …` (bench/run.ts)
 * and `hark bench …` (cli/commands/bench.ts).
 */
import { InvalidArgumentError, type Command } from 'commander'
import type { GeneratorKind } from './scenario.js'
import { defaultOptions, type BenchOptions } from './runner.js'

const positiveInt = (name: string) => (v: string) => {
  const n = Number(v)
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError(`${name} must be a positive integer`)
  return n
}

export const addBenchOptions = (cmd: Command): Command =>
  cmd
    .argument('[scenario...]', 'scenarios to run (default: every scenario whose Hark side exists)')
    .option('--quick', 'smoke runs (1 round: A then B, 0.5 s warm-up + 2 s each): every scenario in under 2 minutes')
    .option('--json <file>', 'also write the raw results (JSON) to this file')
    .option('--list', 'list the scenarios, ready or pending, and exit')
    .option('--sweep', 'also raise the load step by step until p99 or delivery breaks; report the knee')
    .option('--peers-only', 'run only the peer sides (also of scenarios whose Hark side is pending)')
    .option('--rounds <n>', 'A B rounds per scenario (default 5, quick 1)', positiveInt('--rounds'))
    .option('--duration <seconds>', 'measured seconds per run', positiveInt('--duration'))
    .option('--load <n>', "load level instead of the scenario's own (clients, terminals, connects/s: its unit)", positiveInt('--load'))
    .option('--generators <n>', 'load generator processes per run (default 1)', positiveInt('--generators'))
    .option('--generator <kind>', 'room and connection loads: native (C, built with gcc on first use; default) or node (for comparison)', generatorKind)
    .option('--out <dir>', 'results directory (default bench/results/<timestamp>)')
    .option('--no-progress', 'no progress bar on stderr')

const generatorKind = (v: string): GeneratorKind => {
  if (v !== 'native' && v !== 'node') throw new InvalidArgumentError('--generator must be native or node')
  return v
}

interface ParsedOptions {
  generator?: GeneratorKind
  quick?: boolean
  json?: string
  list?: boolean
  sweep?: boolean
  peersOnly?: boolean
  rounds?: number
  duration?: number
  generators?: number
  load?: number
  out?: string
  progress?: boolean
}

export const toBenchOptions = (scenarios: readonly string[], o: ParsedOptions): BenchOptions => ({
  ...defaultOptions,
  scenarios,
  quick: o.quick ?? false,
  json: o.json ?? null,
  list: o.list ?? false,
  sweep: o.sweep ?? false,
  peersOnly: o.peersOnly ?? false,
  rounds: o.rounds ?? null,
  durationSeconds: o.duration ?? null,
  generators: o.generators ?? null,
  load: o.load ?? null,
  generator: o.generator ?? 'native',
  out: o.out ?? null,
  progress: o.progress ?? true,
})
