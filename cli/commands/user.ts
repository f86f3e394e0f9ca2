/**
 * `hark user create|list|grant|reset-password|disable`: bootstrap and care of console users by
 * the operator. Passwords come only on stdin (`--password-stdin`: never in argv, where `ps`
 * and shell history would keep them); every change is in the audit log with the actor `operator`.
 */
import type { Command } from 'commander'
import { ValidationFailed } from '../../core/errors.js'
import { OPERATOR } from '../../core/people/audit.js'
import { People, userView } from '../../core/people/people.js'
import { isRole } from '../../core/people/roles.js'
import { output, withCommon, withOperator, type CommonOptions, type Operator } from '../context.js'

const people = (op: Operator) => new People(op.storage, op.security, op.clock)

/** All of stdin, less one trailing line break (what `echo` or a here-string adds). */
const readPasswordFromStdin = async (): Promise<string> => {
  if (process.stdin.isTTY) throw new ValidationFailed({ field: 'password', message: '--password-stdin reads the password from a pipe, e.g. printf %s "$PW" | hark user …' })
  const chunks: Buffer[] = []
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '')
}

const requirePasswordStdin = (opts: { passwordStdin?: boolean }) => {
  if (!opts.passwordStdin) throw new ValidationFailed({ field: 'password', message: 'give the password on stdin with --password-stdin' })
}

export const userCommands = (program: Command) => {
  const group = program.command('user').description('console users: create, list, grant a role, reset a password, disable')
  withCommon(
    group
      .command('create')
      .argument('<email>')
      .option('--name <name>', 'display name')
      .option('--password-stdin', 'read the password from stdin (required)'),
  )
    .description('create a console user (the first admin: then `hark user grant`, or they create a workspace in the console)')
    .action(
      withOperator(async (op, email: string, opts: CommonOptions & { name?: string; passwordStdin?: boolean }) => {
        requirePasswordStdin(opts)
        const user = await people(op).createUser({ email, name: opts.name ?? null, password: await readPasswordFromStdin() }, OPERATOR)
        output(opts, { userId: user.userId, email: user.email }, () => `${user.userId}\t${user.email}`)
      }),
    )
  withCommon(group.command('list'))
    .description('list users (never their password hashes) with their workspaces and roles')
    .action(
      withOperator((op, opts: CommonOptions) => {
        const list = op.storage.users.list().map((u) => ({ ...userView(u), workspaces: op.storage.memberships.workspacesOf(u.userId) }))
        output(opts, list, () =>
          list
            .map((u) => `${u.userId}\t${u.email}\t${u.disabled ? 'disabled' : 'active'}\t${u.workspaces.map((w) => `${w.workspaceId}:${w.role}`).join(',')}`)
            .join('\n'))
      }),
    )
  withCommon(
    group
      .command('grant')
      .argument('<email>')
      .requiredOption('--workspace <id>', 'workspace id')
      .requiredOption('--role <role>', 'admin, developer or viewer'),
  )
    .description("add the user to a workspace with a role, or change their role (a workspace's last admin cannot be demoted)")
    .action(
      withOperator((op, email: string, opts: CommonOptions & { workspace: string; role: string }) => {
        if (!isRole(opts.role)) throw new ValidationFailed({ field: 'role', message: 'role must be admin, developer or viewer' })
        const p = people(op)
        const user = p.requireUserByEmail(email)
        p.grant(opts.workspace, user.userId, opts.role, OPERATOR)
        const out = { userId: user.userId, email: user.email, workspaceId: opts.workspace, role: opts.role }
        output(opts, out, () => `${user.email} is ${opts.role} of ${opts.workspace}`)
      }),
    )
  withCommon(group.command('reset-password').argument('<email>').option('--password-stdin', 'read the new password from stdin (required)'))
    .description("set a user's password; every console session of the user ends")
    .action(
      withOperator(async (op, email: string, opts: CommonOptions & { passwordStdin?: boolean }) => {
        requirePasswordStdin(opts)
        const p = people(op)
        const user = p.requireUserByEmail(email)
        const r = await p.setPassword(user.userId, await readPasswordFromStdin(), OPERATOR, { action: 'user.password_reset' })
        output(opts, { userId: user.userId, email: user.email, sessionsEnded: r.sessionsEnded }, () => `password reset for ${user.email}; ${r.sessionsEnded} session(s) ended`)
      }),
    )
  withCommon(group.command('disable').argument('<email>'))
    .description('disable a user: their sessions end and they can no longer sign in')
    .action(
      withOperator((op, email: string, opts: CommonOptions) => {
        const p = people(op)
        const user = p.requireUserByEmail(email)
        const r = p.disableUser(user.userId, OPERATOR)
        output(opts, { userId: user.userId, email: user.email, disabled: true, sessionsEnded: r.sessionsEnded }, () => `disabled ${user.email}`)
      }),
    )
}
