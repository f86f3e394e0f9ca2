/** `hark secret rotate` */
import type { Command } from 'commander'
import { rotateSigningSecret } from '../../core/operations/credentials.js'
import { OPERATOR } from '../../core/people/audit.js'
import { output, withCommon, withOperator, type CommonOptions } from '../context.js'
import { requireWorkspace } from './shared.js'

export const secretCommands = (program: Command) => {
  const group = program.command('secret').description("the workspace's hidden token-signing secret")
  withCommon(group.command('rotate').requiredOption('--workspace <id>', 'workspace id'))
    .description('make a new signing secret; tokens signed with the previous one verify until its grace period ends')
    .action(
      withOperator(async (op, opts: CommonOptions & { workspace: string }) => {
        requireWorkspace(op, opts.workspace)
        const r = rotateSigningSecret(op, opts.workspace, OPERATOR)
        const out = { workspaceId: opts.workspace, kid: r.kid, previousRetiresAt: r.previousRetiresAt }
        output(opts, out, () => `rotated: new kid ${r.kid}; previous secret verifies until ${out.previousRetiresAt}`)
      }),
    )
}
