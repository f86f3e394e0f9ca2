/**
 * `hark xiaozhi activate CODE --workspace ID --client CLIENTID [--room R]` and `hark xiaozhi
 * devices --workspace ID`: add a xiaozhi-esp32 device by the code it shows (core's device
 * enrollment, the same call the console's "Add device by code" makes), and list the bound ones.
 */
import type { Command } from 'commander'
import { OPERATOR_CHANGES } from '../../core/people/audit.js'
import { iso, output, withCommon, withOperator, type CommonOptions } from '../context.js'
import { requireWorkspace } from './shared.js'

export const xiaozhiCommands = (program: Command) => {
  const group = program.command('xiaozhi').description('xiaozhi-esp32 devices (activation by code)')
  withCommon(
    group
      .command('activate')
      .argument('<code>', 'the 6-digit code the device shows')
      .requiredOption('--workspace <id>', 'workspace id')
      .requiredOption('--client <clientId>', 'client the device becomes (created when it does not exist)')
      .option('--room <room>', 'room to map the client to')
      .option('--name <name>', 'display name of a client this creates'),
  )
    .description('bind the device showing CODE to a client; its next OTA poll gets its credentials')
    .action(
      withOperator((op, code: string, opts: CommonOptions & { workspace: string; client: string; room?: string; name?: string }) => {
        requireWorkspace(op, opts.workspace)
        const r = op.security.deviceEnrollment.claim({
          code,
          workspaceId: opts.workspace,
          clientId: opts.client,
          room: opts.room,
          name: opts.name,
        }, OPERATOR_CHANGES)
        const out = { ...r, boundAt: iso(r.boundAt) }
        output(opts, out, () => `${r.deviceId}\t${r.clientId}\t${r.room ?? '(no room)'}`)
      }),
    )
  withCommon(group.command('devices').requiredOption('--workspace <id>', 'workspace id'))
    .description('devices bound to clients of a workspace')
    .action(
      withOperator((op, opts: CommonOptions & { workspace: string }) => {
        requireWorkspace(op, opts.workspace)
        const list = op.security.deviceEnrollment.bindings(opts.workspace).map((b) => ({
          deviceId: b.deviceId, clientId: b.clientId, kind: b.kind, info: b.info, boundAt: iso(b.boundAt),
        }))
        output(opts, list, () => list.map((d) => `${d.deviceId}\t${d.clientId}`).join('\n'))
      }),
    )
}
