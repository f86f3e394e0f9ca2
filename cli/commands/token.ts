/** `hark token issue|revoke` */
import type { Command } from 'commander'
import { ClientNotFound, ValidationFailed } from '../../core/errors.js'
import { OPERATOR_CHANGES } from '../../core/people/audit.js'
import { iso, output, withCommon, withOperator, type CommonOptions } from '../context.js'
import { requireWorkspace } from './shared.js'

export const tokenCommands = (program: Command) => {
  const group = program.command('token').description('client tokens (HS256 JWTs)')
  withCommon(
    group
      .command('issue')
      .argument('<clientId>')
      .requiredOption('--workspace <id>', 'workspace id')
      .option('--ttl <seconds>', 'lifetime in seconds; omitted = long-lived'),
  )
    .description('issue a client token (the REST token endpoint does the same for back ends)')
    .action(
      withOperator(async (op, clientId: string, opts: CommonOptions & { workspace: string; ttl?: string }) => {
        requireWorkspace(op, opts.workspace)
        let ttl: number | null = null
        if (opts.ttl !== undefined) {
          ttl = Number(opts.ttl)
          if (!Number.isInteger(ttl) || ttl < 1 || ttl > op.settings.security.maxTokenTtlSeconds) {
            throw new ValidationFailed({
              field: 'ttl',
              message: `--ttl must be an integer from 1 to ${op.settings.security.maxTokenTtlSeconds}`,
            })
          }
        }
        if (!op.storage.clients.get(opts.workspace, clientId)) {
          throw new ClientNotFound({ message: `no client ${clientId} in this workspace` })
        }
        const t = await op.security.tokens.issue(opts.workspace, clientId, ttl)
        const out = { token: t.token, clientId, jti: t.jti, expiresAt: iso(t.expiresAt) }
        output(opts, out, () => t.token)
      }),
    )
  withCommon(group.command('revoke').argument('<jti>').requiredOption('--workspace <id>', 'workspace id'))
    .description('revoke one token by its jti; live sessions using it are closed')
    .action(
      withOperator((op, jti: string, opts: CommonOptions & { workspace: string }) => {
        requireWorkspace(op, opts.workspace)
        const r = op.security.tokens.revoke(opts.workspace, jti, OPERATOR_CHANGES)
        output(opts, { jti: r.jti, clientId: r.clientId, revoked: true }, () => `revoked ${jti}`)
      }),
    )
}
