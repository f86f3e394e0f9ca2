/** `hark client create|list|show|delete`: the operator's view of clients (the REST API is the back end's). */
import type { Command } from 'commander'
import { ValidationFailed } from '../../core/errors.js'
import { isClientId, isDisplayName, isKind, isRoomName } from '../../core/naming.js'
import { createClient, deleteClient } from '../../core/operations/clients.js'
import { OPERATOR_CHANGES } from '../../core/people/audit.js'
import { iso, output, withCommon, withOperator, type CommonOptions } from '../context.js'
import { requireWorkspace } from './shared.js'

export const clientCommands = (program: Command) => {
  const group = program.command('client').description('clients (devices, apps, pages) of a workspace')
  withCommon(
    group
      .command('create')
      .argument('<clientId>')
      .requiredOption('--workspace <id>', 'workspace id')
      .option('--room <room>', 'room the client is mapped to')
      .option('--name <name>', 'display name')
      .option('--kind <kind>', 'kind, e.g. device'),
  )
    .description('create a client')
    .action(
      withOperator(
        (op, clientId: string, opts: CommonOptions & { workspace: string; room?: string; name?: string; kind?: string }) => {
          requireWorkspace(op, opts.workspace)
          const checks: Array<[string, string | undefined, (s: string) => boolean, string]> = [
            ['clientId', clientId, isClientId, '1-128 letters, digits, ".", "_", ":" or "-", not starting with eph_'],
            ['room', opts.room, isRoomName, '1-128 letters, digits, ".", "_", ":" or "-"'],
            ['kind', opts.kind, isKind, '1-32 lower-case letters, digits, ".", "_" or "-"'],
            ['name', opts.name, isDisplayName, '1-200 printable characters'],
          ]
          for (const [field, value, valid, rule] of checks) {
            if (value !== undefined && !valid(value)) throw new ValidationFailed({ field, message: `${field}: ${rule}` })
          }
          const record = createClient(op, opts.workspace, { clientId, name: opts.name, kind: opts.kind, room: opts.room }, OPERATOR_CHANGES)
          const out = { clientId, name: record.name, kind: record.kind, room: record.room, createdAt: iso(record.createdAt) }
          output(opts, out, () => `${clientId}\t${record.room ?? '(no room)'}`)
        },
      ),
    )
  withCommon(group.command('list').requiredOption('--workspace <id>', 'workspace id').option('--room <room>'))
    .description('list clients')
    .action(
      withOperator((op, opts: CommonOptions & { workspace: string; room?: string }) => {
        requireWorkspace(op, opts.workspace)
        const list = op.storage.clients
          .list(opts.workspace, { room: opts.room ?? null, limit: 10_000 })
          .map((c) => ({ clientId: c.clientId, name: c.name, kind: c.kind, room: c.room, ephemeral: c.ephemeral }))
        output(opts, list, () => list.map((c) => `${c.clientId}\t${c.room ?? '(no room)'}\t${c.kind ?? ''}`).join('\n'))
      }),
    )
  withCommon(group.command('delete').argument('<clientId>').requiredOption('--workspace <id>', 'workspace id'))
    .description('delete a client; its live sessions end and its tokens stop working')
    .action(
      withOperator((op, clientId: string, opts: CommonOptions & { workspace: string }) => {
        requireWorkspace(op, opts.workspace)
        deleteClient(op, opts.workspace, clientId, OPERATOR_CHANGES)
        output(opts, { clientId, deleted: true }, () => `deleted ${clientId}`)
      }),
    )
}
