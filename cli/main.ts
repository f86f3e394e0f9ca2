/**
 * The `hark` command line: run the engine and operate on its data dir (workspaces, API keys,
 * clients, device passwords, secrets, tokens, agent presets, xiaozhi devices, console users, the audit log). Errors go to stderr as one line, exit code ≠ 0.
 */
import { Command, CommanderError } from 'commander'
import { ConfigError, settingNames } from '../core/config.js'
import { isHarkError, wireCodesOf } from '../core/errors.js'
import { ListenError } from '../core/transport.js'
import { CliError } from './context.js'
import { agentCommands } from './commands/agent.js'
import { apikeyCommands } from './commands/apikey.js'
import { auditCommand } from './commands/audit.js'
import { benchCommand } from './commands/bench.js'
import { clientCommands } from './commands/client.js'
import { devicePasswordCommands } from './commands/devicePassword.js'
import { presetCommands } from './commands/preset.js'
import { secretCommands } from './commands/secret.js'
import { settingsCommand } from './commands/settings.js'
import { startCommand } from './commands/start.js'
import { tokenCommands } from './commands/token.js'
import { usageCommand } from './commands/usage.js'
import { webhookCommands } from './commands/webhook.js'
import { userCommands } from './commands/user.js'
import { workspaceCommands } from './commands/workspace.js'
import { xiaozhiCommands } from './commands/xiaozhi.js'

export const buildProgram = (): Command => {
  const program = new Command('hark')
    .description('Hark: real-time voice access engine')
    .version(process.env.npm_package_version ?? '0.1.0')
    .showSuggestionAfterError(true)
    // commander's own usage errors read like ours: one line starting with "hark: ".
    .configureOutput({ outputError: (text, write) => write(`hark: ${text.replace(/^error: /, '')}`) })
    .exitOverride()
  startCommand(program)
  settingsCommand(program)
  workspaceCommands(program)
  apikeyCommands(program)
  clientCommands(program)
  devicePasswordCommands(program)
  secretCommands(program)
  tokenCommands(program)
  usageCommand(program)
  presetCommands(program)
  agentCommands(program)
  webhookCommands(program)
  xiaozhiCommands(program)
  userCommands(program)
  auditCommand(program)
  benchCommand(program)
  const override = (cmd: Command): void => {
    cmd.exitOverride()
    cmd.commands.forEach(override)
  }
  override(program)
  return program
}

const fail = (message: string, code: number): never => {
  process.stderr.write(`hark: ${message}\n`)
  process.exit(code)
}

/** A bind failure, and the flag (and variable) that changes what is wrong: the port, or the host. */
const listenAdvice = (e: ListenError): string => {
  const d = settingNames(e.hostProblem ? 'host' : e.setting)
  return e.hostProblem
    ? `${e.message}; choose an address of this machine with --${d.flag} (or ${d.env})`
    : `${e.message}; choose another port with --${d.flag} (or ${d.env})`
}

export const main = async (argv: string[]) => {
  const program = buildProgram()
  try {
    await program.parseAsync(argv)
  } catch (e) {
    if (e instanceof CommanderError) {
      // Help and version are "errors" to commander; their text is already printed.
      if (e.exitCode === 0) process.exit(0)
      process.exit(2)
    }
    if (e instanceof ConfigError) fail(e.message, 2)
    if (e instanceof ListenError) fail(listenAdvice(e), 1)
    if (e instanceof CliError) fail(e.message, e.exitCode)
    // A value the command refuses as invalid (validation_failed) is a usage error, like a bad flag.
    if (isHarkError(e)) fail(`${e.message} (${wireCodesOf(e).code})`, e._tag === 'ValidationFailed' ? 2 : 1)
    fail((e as Error).message ?? String(e), 1)
  }
}

await main(process.argv)
