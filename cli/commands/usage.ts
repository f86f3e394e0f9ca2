/** `hark usage --workspace ID [--from DAY] [--to DAY]`: the same report as GET /api/v1/usage. */
import type { Command } from 'commander'
import { usageReport } from '../../core/usage/report.js'
import { output, withCommon, withOperator, type CommonOptions } from '../context.js'
import { requireWorkspace } from './shared.js'

export const usageCommand = (program: Command) => {
  withCommon(
    program
      .command('usage')
      .requiredOption('--workspace <id>', 'workspace id')
      .option('--from <day>', 'first UTC day, YYYY-MM-DD (default: 89 days ago)')
      .option('--to <day>', 'last UTC day, YYYY-MM-DD (default: today)'),
  )
    .description('daily metered minutes and sessions of a workspace (last 90 days)')
    .action(
      withOperator((op, opts: CommonOptions & { workspace: string; from?: string; to?: string }) => {
        requireWorkspace(op, opts.workspace)
        const report = usageReport(op.storage, opts.workspace, Date.now(), { from: opts.from, to: opts.to })
        output(opts, { records: report.records, totals: report.totals }, () =>
          [
            ...report.records.filter((r) => r.sessions > 0 || r.minutes > 0).map((r) => `${r.date}\t${r.minutes} min\t${r.sessions} sessions`),
            `total\t${report.totals.minutes} min\t${report.totals.sessions} sessions (${report.from} to ${report.to})`,
          ].join('\n'),
        )
      }),
    )
}
