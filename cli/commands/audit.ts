/** `hark audit [--workspace ID]`: the audit log, newest first (a workspace's own events and its members' sign-ins). */
import type { Command } from 'commander'
import { ValidationFailed } from '../../core/errors.js'
import { auditView } from '../../core/people/audit.js'
import { output, withCommon, withOperator, type CommonOptions } from '../context.js'
import { requireWorkspace } from './shared.js'

export const auditCommand = (program: Command) => {
  withCommon(
    program
      .command('audit')
      .option('--workspace <id>', "one workspace's log (without it: every event)")
      .option('--limit <n>', 'most events printed', '100'),
  )
    .description('print the audit log: who did what, to which target, when and from which IP (never a secret)')
    .action(
      withOperator((op, opts: CommonOptions & { workspace?: string; limit: string }) => {
        const limit = Number(opts.limit)
        if (!Number.isInteger(limit) || limit < 1 || limit > 10_000) throw new ValidationFailed({ field: 'limit', message: '--limit must be an integer from 1 to 10000' })
        if (opts.workspace !== undefined) requireWorkspace(op, opts.workspace)
        const rows = opts.workspace === undefined ? op.storage.auditEvents.all({ limit }) : op.storage.auditEvents.ofWorkspace(opts.workspace, { limit })
        const events = rows.map(auditView)
        output(opts, events, () =>
          events.map((e) => [e.at, e.actor, e.action, e.target ?? '-', e.ip ?? '-', e.detail ? JSON.stringify(e.detail) : ''].join('\t')).join('\n'))
      }),
    )
}
