/** `hark workspace create|list` */
import type { Command } from 'commander'
import { iso, output, withCommon, withOperator, type CommonOptions } from '../context.js'

export const workspaceCommands = (program: Command) => {
  const group = program.command('workspace').description('create and list workspaces')
  withCommon(group.command('create').argument('<name>', 'display name'))
    .description('create a workspace (and its hidden signing secret)')
    .action(
      withOperator((op, name: string, opts: CommonOptions) => {
        const w = op.security.createWorkspace(name)
        output(opts, { workspaceId: w.workspaceId, name: w.name }, () => `${w.workspaceId}\t${w.name}`)
      }),
    )
  withCommon(group.command('list'))
    .description('list workspaces')
    .action(
      withOperator((op, opts: CommonOptions) => {
        const list = op.storage.workspaces.list().map((w) => ({ ...w, createdAt: iso(w.createdAt) }))
        output(opts, list, () => list.map((w) => `${w.workspaceId}\t${w.name}\t${w.createdAt}`).join('\n'))
      }),
    )
}
