/** `hark apikey create|list|revoke` */
import type { Command } from 'commander'
import { createApiKey, revokeApiKey } from '../../core/operations/credentials.js'
import { OPERATOR } from '../../core/people/audit.js'
import { iso, output, withCommon, withOperator, type CommonOptions } from '../context.js'
import { requireWorkspace } from './shared.js'

export const apikeyCommands = (program: Command) => {
  const group = program.command('apikey').description('workspace API keys (hk_…): shown once, stored as a hash')
  withCommon(group.command('create').requiredOption('--workspace <id>', 'workspace id').option('--name <name>', 'label'))
    .description('create an API key; its value is printed this once only')
    .action(
      withOperator((op, opts: CommonOptions & { workspace: string; name?: string }) => {
        requireWorkspace(op, opts.workspace)
        const k = createApiKey(op, opts.workspace, opts.name ?? null, OPERATOR)
        output(opts, { keyId: k.keyId, apiKey: k.apiKey }, () => `${k.keyId}\t${k.apiKey}`)
      }),
    )
  withCommon(group.command('list').requiredOption('--workspace <id>', 'workspace id'))
    .description('list API keys (never their values)')
    .action(
      withOperator((op, opts: CommonOptions & { workspace: string }) => {
        requireWorkspace(op, opts.workspace)
        const keys = op.security.apiKeys.list(opts.workspace).map((k) => ({
          keyId: k.keyId, name: k.name, createdAt: iso(k.createdAt), lastUsedAt: iso(k.lastUsedAt),
          revokedAt: iso(k.revokedAt),
        }))
        output(opts, keys, () =>
          keys.map((k) => `${k.keyId}\t${k.name ?? ''}\t${k.revokedAt ? 'revoked' : 'active'}\t${k.lastUsedAt ?? 'never used'}`).join('\n'))
      }),
    )
  withCommon(group.command('revoke').argument('<keyId>').requiredOption('--workspace <id>', 'workspace id'))
    .description('revoke an API key; the engine refuses it within a second')
    .action(
      withOperator((op, keyId: string, opts: CommonOptions & { workspace: string }) => {
        requireWorkspace(op, opts.workspace)
        revokeApiKey(op, opts.workspace, keyId, OPERATOR)
        output(opts, { keyId, revoked: true }, () => `revoked ${keyId}`)
      }),
    )
}
