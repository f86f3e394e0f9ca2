/** `hark device-password reset|show` */
import type { Command } from 'commander'
import { resetDevicePassword, revealDevicePassword } from '../../core/operations/credentials.js'
import { OPERATOR } from '../../core/people/audit.js'
import { output, withCommon, withOperator, type CommonOptions } from '../context.js'
import { requireWorkspace } from './shared.js'

export const devicePasswordCommands = (program: Command) => {
  const group = program.command('device-password').description('MQTT device access passwords (hkd_…)')
  withCommon(group.command('reset').argument('<clientId>').requiredOption('--workspace <id>', 'workspace id'))
    .description('generate a new password; the old one stops working at once and its sessions are dropped')
    .action(
      withOperator((op, clientId: string, opts: CommonOptions & { workspace: string }) => {
        requireWorkspace(op, opts.workspace)
        const r = resetDevicePassword(op, opts.workspace, clientId, OPERATOR)
        output(opts, r, () => `${r.clientId}\t${r.password}`)
      }),
    )
  withCommon(group.command('show').argument('<clientId>').requiredOption('--workspace <id>', 'workspace id'))
    .description("show a device's current password")
    .action(
      withOperator((op, clientId: string, opts: CommonOptions & { workspace: string }) => {
        requireWorkspace(op, opts.workspace)
        const r = revealDevicePassword(op, opts.workspace, clientId, OPERATOR, { generate: false })
        output(opts, r, () => `${r.clientId}\t${r.password}`)
      }),
    )
}
