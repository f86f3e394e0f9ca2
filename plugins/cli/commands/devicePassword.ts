/** `hark device-password reset|show` */
import type { Command } from 'commander'
import { output, withCommon, withOperator, type CommonOptions } from '../context.js'
import { requireWorkspace } from './shared.js'

export const devicePasswordCommands = (program: Command) => {
  const group = program.command('device-password').description('MQTT device access passwords (hkd_…)')
  withCommon(group.command('reset').argument('<clientId>').requiredOption('--workspace <id>', 'workspace id'))
    .description('generate a new password; the old one stops working at once and its sessions are dropped')
    .action(
      withOperator((op, clientId: string, opts: CommonOptions & { workspace: string }) => {
        requireWorkspace(op, opts.workspace)
        const r = op.security.devicePasswords.reset(opts.workspace, clientId)
        output(opts, r, () => `${r.clientId}\t${r.password}`)
      }),
    )
  withCommon(group.command('show').argument('<clientId>').requiredOption('--workspace <id>', 'workspace id'))
    .description("show a device's current password")
    .action(
      withOperator((op, clientId: string, opts: CommonOptions & { workspace: string }) => {
        requireWorkspace(op, opts.workspace)
        const r = op.security.devicePasswords.show(opts.workspace, clientId)
        output(opts, r, () => `${r.clientId}\t${r.password}`)
      }),
    )
}
